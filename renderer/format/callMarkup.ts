/**
 * Tool calls an agent wrote into its reply as text rather than as structured calls, read back as calls: Hermes-style
 * `<tool_call>{"name", "arguments"}</tool_call>` blocks (MTRouter's HLE agent and the many open models prompted that
 * way), their XML form (`<tool_call><search><query>…</query></search></tool_call>`), the ```` ```tool ```` fence
 * variants, and `name({json})` lines (how Inspect and OpenTelemetry importers write a call). Read here, in the
 * renderer, like the turn list's summary (actionSummary.ts), so databases imported before read right too.
 */

/** A call found in text: its name, its arguments as JSON text (or as written when they are not JSON), where it was. */
export interface TextCall {
  name: string;
  input: string;
  start: number;
  end: number;
}

// The same patterns the importer uses to decide what ran (electron/importers/mtrouterActions.ts).
export const CALL_MARKUP: readonly RegExp[] = [
  /<tool_call>\s*([\s\S]*?)\s*<\/tool_call>/g,
  /```(?:tool|json:tool|tool_call)\s*\n(\{[\s\S]*?\})\n```/g,
];
const XML_CALL = /^<([\w-]+)>([\s\S]*)<\/\1>$/;
const XML_ARG = /<([\w-]+)>([\s\S]*?)<\/\1>/g;
/** `name({…})` on a line of its own. */
export const RAW_CALL = /^([\w.:/-]+)\s*\((\{[\s\S]*\})\)$/;
const TOOL_RESPONSE = /<tool_response(?:\s+name="([^"]*)")?\s*>\n?([\s\S]*?)\n?<\/tool_response>/g;

export function parseObject(text: string | null | undefined): Record<string, unknown> | null {
  if (!text) return null;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** `<search><query>a</query></search>`: the tag names the tool; its inner tags are the arguments (as a JSON object). */
function xmlCall(body: string): { name: string; input: string } | null {
  const m = XML_CALL.exec(body.trim());
  if (!m) return null;
  const inner = (m[2] ?? '').trim();
  const args: Record<string, string> = {};
  for (const a of inner.matchAll(XML_ARG)) args[a[1] ?? ''] = (a[2] ?? '').trim();
  return { name: m[1] ?? '', input: Object.keys(args).length > 0 ? JSON.stringify(args) : inner };
}

function jsonCall(body: string): { name: string; input: string } | null {
  const call = parseObject(body);
  if (call === null || typeof call.name !== 'string' || call.name === '') return null;
  const args = call.arguments ?? call.parameters ?? call.input;
  return { name: call.name, input: typeof args === 'string' ? args : JSON.stringify(args ?? {}) };
}

/** Calls written into the reply as markup, in order of where they stand. */
export function markupCalls(text: string): TextCall[] {
  const found: TextCall[] = [];
  for (const pattern of CALL_MARKUP) {
    for (const m of text.matchAll(pattern)) {
      const body = m[1] ?? '';
      const call = jsonCall(body) ?? xmlCall(body);
      if (call) found.push({ ...call, start: m.index, end: m.index + m[0].length });
    }
  }
  return found.sort((a, b) => a.start - b.start);
}

/** `name({json})` lines, in order. */
export function rawCallLines(text: string): TextCall[] {
  const found: TextCall[] = [];
  let at = 0;
  for (const line of text.split('\n')) {
    const m = RAW_CALL.exec(line.trim());
    if (m && parseObject(m[2]) !== null) found.push({ name: m[1] ?? '', input: m[2] ?? '{}', start: at, end: at + line.length });
    at += line.length + 1;
  }
  return found;
}

/** The text with the calls taken out: the words the agent wrote around them. */
export function textAround(text: string, calls: readonly TextCall[]): string {
  let out = '';
  let at = 0;
  for (const c of calls) {
    out += text.slice(at, c.start);
    at = c.end;
  }
  return (out + text.slice(at)).replace(/\n{3,}/g, '\n\n').trim();
}

/**
 * The environment's answer split into one result per call when it is `<tool_response>` blocks, one per call, in the
 * calls' order (names matching where given); null when it cannot be split that way.
 */
export function toolResponses(observation: string | null, names: readonly string[]): string[] | null {
  if (!observation || names.length === 0) return null;
  const responses = [...observation.matchAll(TOOL_RESPONSE)];
  if (responses.length !== names.length) return null;
  if (responses.some((r, i) => r[1] !== undefined && r[1] !== names[i])) return null;
  // Only the label (`Observation:`) may stand outside the blocks: anything else would be lost.
  const outside = observation.replace(TOOL_RESPONSE, '').replace(/^\s*\w+:\s*/, '').trim();
  return outside === '' ? responses.map((r) => r[2] ?? '') : null;
}
