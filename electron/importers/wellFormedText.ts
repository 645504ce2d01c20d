/**
 * Values known to hold no lone surrogate, so the writer need not walk every string of them (wellFormed in
 * episodeWriter.ts: about 4% of a large import's CPU). JSON.parse makes a lone surrogate only from one
 * in its text or from a `\u` escape, so a value parsed from well-formed text without any `\u` is vouched for (text
 * decoded from UTF-8 is well-formed, and V8 answers that at once for the usual one-byte string). A value not
 * vouched for is walked as before; one vouched for is never changed afterwards (the writer reads it as parsed).
 */
const vouched = new WeakSet<object>();

/** `value` was just parsed from `text` by JSON.parse. */
export function noteParsedFrom(value: unknown, text: string): void {
  if (typeof value === 'object' && value !== null && !text.includes('\\u') && text.isWellFormed()) vouched.add(value);
}

/** Whether `value` is known to hold only well-formed strings. */
export function vouchedWellFormed(value: unknown): boolean {
  return typeof value === 'object' && value !== null && vouched.has(value);
}
