/**
 * Huge texts in a shared case (issue 37, item 3): a tool that printed megabytes would make the file megabytes, so a
 * text past CUT_OVER characters keeps its head and tail, and the middle says, in the text itself, what was left out.
 */

/** Texts longer than this are cut. */
export const CUT_OVER = 24_000;
const HEAD = 12_000;
const TAIL = 6_000;

export interface CutCount {
  texts: number;
  chars: number;
}

/** A text cut to its head and tail (whole lines where it can) with a line naming what is missing; counts it in `count`. */
export function cutText(text: string, count: CutCount): string {
  if (text.length <= CUT_OVER) return text;
  let head = text.slice(0, HEAD);
  const headLine = head.lastIndexOf('\n');
  if (headLine > HEAD / 2) head = head.slice(0, headLine + 1);
  let tail = text.slice(text.length - TAIL);
  const tailLine = tail.indexOf('\n');
  if (tailLine >= 0 && tailLine < TAIL / 2) tail = tail.slice(tailLine + 1);
  const left = text.slice(head.length, text.length - tail.length);
  const lines = left.split('\n').length - 1;
  count.texts++;
  count.chars += left.length;
  const what = `${left.length.toLocaleString('en-US')} characters${lines > 0 ? ` (${lines.toLocaleString('en-US')} lines)` : ''}`;
  return `${head}\n[… ${what} cut here when this case was shared; the log has them …]\n${tail}`;
}

/** Every string in `value` cut by cutText (a copy; `value` is left as it is). */
export function cutTexts<T>(value: T, count: CutCount): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return cutText(v, count);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value) as T;
}
