/**
 * The action of a turn as MTRouter's agents read a reply, so that lift(model, tool) and the tool-category
 * analyses see what the agent did:
 *
 * - ScienceWorld (`action_mode: text`): exactly one ```` ```text ```` block holds the command; its tool is the
 *   command's action category, by the simulator's own prefixes (the reference's ScienceWorld environment groups
 *   valid actions this way for its `?category` queries), `query` for those `?…` queries themselves, and, ours
 *   for verbs the reference leaves out, `wait` for `wait` / `wait1` and `observation` for `task`. A finish word
 *   (`task completed`) is the submission.
 * - HLE (`action_mode: multitool`): `<tool_call>` blocks (JSON `{"name", "arguments"}` or XML `<search>…</search>`
 *   naming a known tool), and the ```` ```tool ```` fence variants the reference's parser also takes. The turn's
 *   tool is the first call's; a call to the answer tool makes it the submission.
 */
import type { CanonicalTurn } from '../../shared/canonical.ts';

type Action = CanonicalTurn['action'];

/** ScienceWorld action categories and the command prefixes of each, in the reference's order. */
export const SCIENCEWORLD_ACTION_CATEGORIES: readonly (readonly [string, readonly string[]])[] = [
  ['navigation', ['go ', 'go to ', 'go through ', 'walk ', 'move ', 'teleport ']],
  ['object', ['pick up ', 'get ', 'take ', 'put ', 'drop ', 'pour ', 'dunk ']],
  ['observation', ['look', 'examine ', 'inventory', 'read ']],
  ['device', ['activate ', 'turn on ', 'turn off ', 'deactivate ', 'use ']],
  ['door', ['open ', 'close ']],
  ['electrical', ['connect ', 'disconnect ']],
  ['interaction', ['mix ', 'stir ', 'eat ', 'consume ', 'flush ', 'focus ']],
];

/** config/extra/scienceworld.yaml: the commands that end an episode. */
export const SCIENCEWORLD_FINISH_MARKERS = ['task completed', 'TASK_COMPLETE'];
/** config/extra/hle.yaml: the tools an HLE agent has, and the one that submits. */
export const HLE_TOOLS = ['search', 'python', 'browse', 'answer'];
export const HLE_ANSWER_TOOL = 'answer';

const TEXT_BLOCK = /```text\s*\n([\s\S]*?)\n```/g;

/** A ScienceWorld command's tool: its action category, `query`, `wait`, or `other` for an unknown verb. */
export function scienceWorldTool(command: string): string {
  const c = command.trim().toLowerCase();
  if (c.startsWith('?')) return 'query';
  for (const [category, prefixes] of SCIENCEWORLD_ACTION_CATEGORIES) if (prefixes.some((p) => c.startsWith(p))) return category;
  if (/^wait\d*(\s|$)/.test(c)) return 'wait';
  if (c === 'task') return 'observation';
  return 'other';
}

export function textActionOf(reply: string, finishMarkers: readonly string[] = SCIENCEWORLD_FINISH_MARKERS): Action {
  const blocks = [...reply.matchAll(TEXT_BLOCK)];
  const command = blocks.length === 1 ? blocks[0]?.[1]?.trim() : undefined;
  if (command === undefined) return { type: 'message', tool: null, text: reply };
  if (finishMarkers.includes(command)) return { type: 'submit', tool: null, text: reply };
  return { type: 'tool', tool: scienceWorldTool(command), text: reply };
}

const CALL_PATTERNS = [
  /<tool_call>\s*([\s\S]*?)\s*<\/tool_call>/g,
  /```tool\s*\n(\{[\s\S]*?\})\n```/g,
  /```json:tool\s*\n(\{[\s\S]*?\})\n```/g,
  /```tool_call\s*\n(\{[\s\S]*?\})\n```/g,
];

/** The call's name from a JSON body; null when the JSON names none, undefined when the body is not JSON. */
function jsonName(text: string): string | null | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const name = (value as { name?: unknown }).name;
  return typeof name === 'string' && name !== '' ? name : null;
}

/** The reference also accepts near-JSON: single-quoted or bare keys and trailing commas. */
function lenientJsonName(text: string): string | null {
  const fixed = text
    .replace(/'(\w+)':/g, '"$1":')
    .replace(/,\s*}/g, '}')
    .replace(/,\s*]/g, ']')
    .replace(/(\{|,)\s*(\w+)\s*:/g, '$1"$2":');
  try {
    const value: unknown = JSON.parse(fixed);
    const name = typeof value === 'object' && value !== null ? (value as { name?: unknown }).name : null;
    return typeof name === 'string' && name !== '' ? name : null;
  } catch {
    return null;
  }
}

/** `<search>…</search>` inside the block, for the first known tool whose tags are there. */
function xmlName(text: string, knownTools: readonly string[]): string | null {
  for (const tool of knownTools) {
    const open = text.indexOf(`<${tool}>`);
    if (open !== -1 && text.lastIndexOf(`</${tool}>`) > open) return tool;
  }
  return null;
}

/** Tool names of the calls in a reply, in order (a block repeated verbatim counts once, as in the reference). */
export function toolCallsOf(reply: string, knownTools: readonly string[] = HLE_TOOLS): string[] {
  const names: string[] = [];
  const seen = new Set<string>();
  for (const pattern of CALL_PATTERNS) {
    for (const match of reply.matchAll(pattern)) {
      const body = match[1] ?? '';
      if (seen.has(body)) continue;
      seen.add(body);
      const json = jsonName(body.trim());
      const name = (json === undefined ? lenientJsonName(body.trim()) : json) ?? xmlName(body, knownTools);
      if (name !== null) names.push(name.slice(0, 200));
    }
  }
  return names;
}

export function toolCallActionOf(reply: string, knownTools: readonly string[] = HLE_TOOLS, answerTool = HLE_ANSWER_TOOL): Action {
  const calls = toolCallsOf(reply, knownTools);
  const first = calls[0];
  if (first === undefined) return { type: 'message', tool: null, text: reply };
  return { type: calls.includes(answerTool) ? 'submit' : 'tool', tool: first, text: reply };
}
