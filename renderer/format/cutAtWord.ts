/**
 * A short form of a text shown in little room (a run's description under its name): cut after its last whole word
 * within `maxChars`, with "…", never inside a word. Where it is shown cut, the whole text is its tooltip.
 */
export function cutAtWord(text: string, maxChars: number): string {
  const t = text.trim().replace(/\s+/g, ' ');
  if (t.length <= maxChars) return t;
  const head = t.slice(0, maxChars);
  // A space or a punctuation mark just past the limit: the word before it ends there.
  const space = /[\s,;:.)\]]/.test(t[maxChars] ?? '') ? maxChars : head.lastIndexOf(' ');
  // One word longer than the room: cut it, there is no word end to cut at.
  const kept = space > 0 ? head.slice(0, space) : head.slice(0, maxChars - 1);
  return `${kept.replace(/[\s,;:(–-]+$/, '')}…`;
}
