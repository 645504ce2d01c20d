/**
 * Which blocks a turn's reading needs, so that nothing the log holds is shown twice or lost:
 * - formats with structured tool calls (Claude Code, Codex, Gemini CLI, Copilot CLI, OpenHands, ATIF) write the
 *   turn's action as a digest of the calls (`bash: ls`, `Read a.py`, one line a call) for the turn list, search and
 *   the estimator, and often the observation as the calls' results joined: both are then said by the calls;
 * - mini-swe-agent's reply is its thought, then the one ```` ```bash ```` block it runs: read as reasoning, then the command;
 * - a shell call's arguments are JSON (`{"command": ["bash", "-lc", "ls"]}`), but a reader wants the command.
 */
import type { TurnDetail } from '../../shared/api.ts';
import { BASH_BLOCK, SHELL_TOOLS } from './codeFence.ts';

type Calls = TurnDetail['tool_calls'];

/** What a call's argument object holds as text, its strings unescaped (a path, a command, a query). */
function argumentText(input: string | null | undefined): string {
  if (!input) return '';
  try {
    const strings: string[] = [];
    const walk = (v: unknown): void => {
      if (typeof v === 'string') strings.push(v);
      else if (typeof v === 'number' || typeof v === 'boolean') strings.push(String(v));
      else if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object') Object.values(v).forEach(walk);
    };
    walk(JSON.parse(input));
    return strings.join('\n');
  } catch {
    return input;
  }
}

// `bash: ls`, `report_intent: Investigating`, `Read a.py`, `Task (Explore): …`: a verb the importer put before the
// call's argument, with a qualifier in brackets.
const DIGEST_VERB = /^[\w.-]+(?:\s*\([^)]*\))?(?::\s+|\s+)/;

/**
 * True when the action says nothing the calls do not: each of its lines is a call written as `name(…)`, `name {…}`
 * or `name: {…}`, or its words (less a leading verb such as `bash:` or `Read`, less a clipping “…”) are in the calls'
 * arguments. An action with words of its own (a THOUGHT before a fenced command) is shown.
 */
export function actionRepeatsCalls(action: string | null, calls: Calls): boolean {
  if (calls.length === 0) return false;
  if (!action?.trim()) return true;
  const args = calls.map((c) => argumentText(c.input)).join('\n');
  const names = calls.map((c) => c.name);
  return action.split('\n').every((raw) => {
    const line = raw.trim().replace(/…\)?$/, '');
    if (line === '' || names.some((n) => line === n || [`${n}(`, `${n} {`, `${n}: {`, `${n}: [`].some((dump) => line.startsWith(dump)))) return true;
    if (args.includes(line)) return true;
    // `Grep P in DIR`, `Edit a.ts, b.ts`: several arguments in one line.
    return line
      .replace(DIGEST_VERB, '')
      .split(/ in |, /)
      .every((part) => args.includes(part));
  });
}

/** True when the observation is the calls' results joined (a blank line or a newline between them). */
export function observationIsResults(observation: string | null, calls: Calls): boolean {
  const results = calls.flatMap((c) => (c.result != null ? [c.result] : []));
  if (observation == null || results.length === 0) return false;
  return observation === results.join('\n\n') || observation === results.join('\n');
}

/** The command of an argument list as a shell runs it: `["bash", "-lc", "ls -la"]` is `ls -la`. */
export function commandOfArgv(words: readonly string[]): string {
  return words.length >= 3 && /^-\w*c$/.test(words.at(-2) ?? '') ? (words.at(-1) ?? '') : words.join(' ');
}

export interface ShellCall {
  command: string;
  /** The call's other arguments (a description, a working directory, a timeout), as `key: value`. */
  others: string[];
}

/** A shell tool's call as the command it ran and its other arguments; null for any other call or input. */
export function shellCall(name: string, input: string | null | undefined): ShellCall | null {
  if (!SHELL_TOOLS.test(name) || !input) return null;
  let args: unknown;
  try {
    args = JSON.parse(input);
  } catch {
    return null;
  }
  if (!args || typeof args !== 'object' || Array.isArray(args)) return null;
  const record = args as Record<string, unknown>;
  const key = 'command' in record ? 'command' : 'cmd' in record ? 'cmd' : null;
  const value = key === null ? null : record[key];
  const command =
    typeof value === 'string' ? value : Array.isArray(value) && value.every((w) => typeof w === 'string') ? commandOfArgv(value) : null;
  if (command === null) return null;
  const others = Object.entries(record)
    .filter(([k, v]) => k !== key && v !== null && v !== undefined && v !== '')
    .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`);
  return { command, others };
}

const THOUGHT_LABEL = /^\s*(THOUGHT|Thought|DISCUSSION|Discussion)\s*:\s*/;

/**
 * A reply that is words, then the one bash block that ran, and nothing after it: its words (less a `THOUGHT:`
 * label) and the command. Null for anything else (no words, several blocks, text after the block).
 */
export function thoughtAndCommand(action: string | null): { thought: string; command: string } | null {
  if (!action) return null;
  const blocks = [...action.matchAll(BASH_BLOCK)];
  const block = blocks.length === 1 ? blocks[0] : undefined;
  if (!block || action.slice(block.index + block[0].length).trim() !== '') return null;
  const thought = action.slice(0, block.index).replace(THOUGHT_LABEL, '').trim();
  return thought === '' ? null : { thought, command: block[1] ?? '' };
}
