/**
 * One line that says what a turn did, for the turn list: the command that ran or the tool that was called,
 * as a reader scans for it (`ls -la src/`, `Bash: npm test`, `Edit src/a.ts`), never the prose around it.
 *
 * Computed here, from what every turn carries (the action text, the structured tool calls, the action type),
 * rather than stored at import: the stored action text stays the agent's own words for search and the
 * estimator, databases imported before this rule read right without a re-import, and one function serves
 * every format:
 * - structured tool calls (Claude Code, Codex, Gemini CLI, Copilot CLI, OpenHands, ATIF): the importer already
 *   wrote one line per call into the action (`bash: ls`, `Edit F`); where it could only dump the arguments
 *   (`update_plan({…})`), the call's key argument is picked here.
 * - text agents: mini-swe-agent runs the one ```` ```bash ```` block of a reply (a reply with another count runs
 *   nothing), MTRouter's ScienceWorld agent the one ```` ```text ```` block, its HLE agent the `<tool_call>` JSON;
 *   other fenced code in the reasoning (`class Run:`) is not what ran.
 * - SWE-agent, Aider, Uno, canonical logs: the action is the command or the step already; its first line.
 * - Inspect and OpenTelemetry write calls as `name({json})` lines after the reply's text.
 */
import type { TurnDetail } from '../../shared/api.ts';
import { markupCalls, parseObject, RAW_CALL } from './callMarkup.ts';
import { BASH_BLOCK } from './codeFence.ts';
import { commandOfArgv } from './turnBlocks.ts';

export interface ActionSummary {
  /** The line shown. */
  text: string;
  /** Further calls the same response made (shown as “+N”). */
  more: number;
  /** Everything summarised, one call per line, for a tooltip. */
  full: string;
}

type SummaryInput = Pick<TurnDetail, 'action' | 'tool' | 'action_type'> & { tool_calls?: TurnDetail['tool_calls'] };

// The pattern the importer uses to decide what ran (electron/importers/mtrouterActions.ts).
const TEXT_BLOCK = /```text\s*\n([\s\S]*?)\n```/g;
const PROSE_PREFIX = /^(THOUGHT|Thought|DISCUSSION|Discussion)\s*:?\s*/;

/** The longest line kept; the list clips with an ellipsis anyway, the tooltip has more. */
const MAX_LINE = 300;
const LONG_PATH = 48;

/** Arguments that say what a call did, most telling first. Paths read `Name path`, the rest `Name: value`. */
const PATH_KEYS = ['file_path', 'notebook_path', 'path', 'absolute_path', 'filename', 'file'];
const VALUE_KEYS = ['command', 'cmd', 'code', 'pattern', 'url', 'query', 'intent', 'title', 'description', 'prompt', 'summary', 'skill', 'task_id', 'plan', 'text'];
const CODE_SKIP = /^(import\s|from\s+\S+\s+import\s|#|\/\/|\s*$)/;

function clip(s: string): string {
  return s.length > MAX_LINE ? `${s.slice(0, MAX_LINE)}…` : s;
}

/** The first line of a command, with “…” when more lines follow (a heredoc, an edit's new text). */
function commandLine(command: string): string {
  const lines = command.trim().split('\n');
  const first = lines[0]?.trim() ?? '';
  return clip(lines.length > 1 ? `${first} …` : first);
}

/** Code's first line that does something (imports and comments say little about what ran). */
function codeLine(code: string): string {
  const lines = code.split('\n');
  const telling = lines.find((l) => !CODE_SKIP.test(l)) ?? lines.find((l) => l.trim() !== '') ?? '';
  return clip(telling.trim() + (lines.filter((l) => l.trim() !== '').length > 1 ? ' …' : ''));
}

/** The end of a long path, where the file's name is: the list has room for about 48 characters. */
function shortPath(path: string): string {
  if (path.length <= LONG_PATH) return path;
  const parts = path.split('/').filter(Boolean);
  return `…/${parts.slice(-3).join('/')}`;
}

/** `Read /a/long/path/to/file.ex` as the importers write it, with the path's end kept in view. */
function shortenPathLine(line: string): string {
  const m = /^([\w.-]+) (\/\S+)$/.exec(line);
  return m ? `${m[1]} ${shortPath(m[2] ?? '')}` : line;
}

/** A plan or to-do list (Codex `update_plan`, Claude Code `TodoWrite`): the step under way, else the first. */
function planStep(value: unknown): string | null {
  if (!Array.isArray(value)) return null;
  const steps = value.filter((s): s is Record<string, unknown> => typeof s === 'object' && s !== null);
  const step = steps.find((s) => s.status === 'in_progress') ?? steps[0];
  const text = step?.step ?? step?.content;
  return typeof text === 'string' ? text : null;
}

function argText(key: string, value: unknown): string | null {
  if (typeof value === 'string' && value.trim() !== '') {
    if (key === 'code') return codeLine(value);
    // A plan or summary is markdown: its heading marks say nothing.
    return commandLine(key === 'command' || key === 'cmd' ? value : value.trim().replace(/^#+\s+/, ''));
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  // Codex `shell`: ["bash", "-lc", "ls -la"]; what ran is the last word.
  if (key === 'command' && Array.isArray(value) && value.every((v) => typeof v === 'string')) {
    return commandLine(commandOfArgv(value as string[]));
  }
  const step = planStep(value);
  return step === null ? null : commandLine(step);
}

/** One call as a reader would say it: `Bash: npm test`, `Read src/a.ts`, `str_replace_editor create app.js`. */
export function callSummary(name: string, input: string | null | undefined): string {
  const args = parseObject(input);
  if (args === null) return input?.trim() ? `${name}: ${commandLine(input)}` : name;
  const path = PATH_KEYS.map((k) => args[k]).find((v): v is string => typeof v === 'string' && v !== '');
  const command = typeof args.command === 'string' ? args.command : null;
  // An editor's sub-command (`create`, `view`) says little without the file it acts on.
  if (path !== undefined && command !== null && /^\w+$/.test(command)) return `${name} ${command} ${shortPath(path)}`;
  if (path !== undefined && typeof args.pattern !== 'string' && command === null) return `${name} ${shortPath(path)}`;
  for (const key of VALUE_KEYS) {
    const text = key in args ? argText(key, args[key]) : null;
    if (text) return `${name}: ${text}`;
  }
  // Anything else: the first short plain value (an element id, a library name).
  for (const [key, value] of Object.entries(args)) {
    const text = typeof value === 'object' ? null : argText(key, value);
    if (text) return `${name}: ${text}`;
  }
  return name;
}

/** Calls written into the reply as markup (`<tool_call>{"name", "arguments"}</tool_call>`), in order. */
function markupCallLines(text: string): string[] {
  return markupCalls(text).map((c) => callSummary(c.name, c.input));
}

/** The single block of a kind, as the agent runs it; none when there are zero or several. */
function onlyBlock(text: string, pattern: RegExp): string | null {
  const blocks = [...text.matchAll(pattern)];
  return blocks.length === 1 ? (blocks[0]?.[1] ?? null) : null;
}

/** A raw `name({json})` line in its readable form; the line itself when it is not one. */
function readableCall(line: string): string {
  const m = RAW_CALL.exec(line.trim());
  return m ? callSummary(m[1] ?? '', m[2]) : line;
}

/** The first line of the agent's own words, without a THOUGHT: label or fence markers. */
function proseLine(text: string): string {
  const line = text
    .split('\n')
    .map((l) => l.replace(PROSE_PREFIX, '').trim())
    .find((l) => l !== '' && !l.startsWith('```'));
  return clip(line ?? '');
}

function summaryOf(lines: string[], fallback: string): ActionSummary {
  const shown = lines.filter((l) => l !== '');
  const text = shown[0] ?? fallback;
  return { text, more: Math.max(0, shown.length - 1), full: shown.length > 0 ? shown.join('\n') : fallback };
}

export function actionSummary(turn: SummaryInput): ActionSummary {
  const text = (turn.action ?? '').trim();
  const fallback = turn.tool || turn.action_type;
  const calls = turn.tool_calls ?? [];
  if (calls.length > 0) {
    // The importer's line for the first call, unless it could only dump the arguments.
    const first = calls[0];
    const line = text.split('\n', 1)[0]?.trim() ?? '';
    const raw = first !== undefined && (line === '' || line.startsWith(`${first.name}(`) || line.startsWith(`${first.name} {`));
    // One call written on several lines (a script) is its first line and “…”, as a text agent's command is.
    const continued = calls.length === 1 && text.includes('\n') && !line.endsWith('…') ? ' …' : '';
    const head = raw && first !== undefined ? callSummary(first.name, first.input) : shortenPathLine(clip(line)) + continued;
    return { ...summaryOf([head], fallback), more: calls.length - 1, full: [head, ...calls.slice(1).map((c) => callSummary(c.name, c.input))].join('\n') };
  }
  // A reply that ran nothing (a final answer, a format error) is summarised by what it says.
  if (turn.action_type !== 'message') {
    const bash = onlyBlock(text, BASH_BLOCK) ?? onlyBlock(text, TEXT_BLOCK);
    if (bash !== null) return summaryOf([commandLine(bash)], fallback);
    const markup = markupCallLines(text);
    if (markup.length > 0) return summaryOf(markup, fallback);
    const rawLines = text.split('\n').filter((l) => RAW_CALL.test(l.trim()));
    if (rawLines.length > 0) return summaryOf(rawLines.map(readableCall), fallback);
    // The action is the command itself (SWE-agent, Aider, canonical logs): a heredoc's body is not the summary.
    if (!text.includes('```')) return summaryOf([commandLine(text.replace(PROSE_PREFIX, ''))], fallback);
  }
  return summaryOf([proseLine(text)], fallback);
}
