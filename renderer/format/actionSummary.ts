/**
 * One line that says what a turn did, for the turn list. Agents wrap the command in prose ("THOUGHT: …"
 * then a fenced block, or a `<tool_call>` after reasoning), and the command is what a reader scans for.
 */
const FENCE = /```[\w-]*\n([^\n]*)/;
const TOOL_CALL = /<tool_call>\s*\{\s*"name"\s*:\s*"([^"]+)"/;

export function actionSummary(action: string | null, fallback: string): string {
  const text = (action ?? '').trim();
  const fenced = FENCE.exec(text)?.[1]?.trim();
  if (fenced) return fenced;
  const call = TOOL_CALL.exec(text)?.[1];
  if (call) return `${call}(…)`;
  const first = text.split('\n', 1)[0]?.replace(/^(THOUGHT|Thought):\s*/, '').trim();
  return first || fallback;
}
