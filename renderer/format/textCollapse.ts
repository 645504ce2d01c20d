/**
 * Where a long log text is cut when it opens collapsed. The cut is on a line boundary so the shown head and the
 * hidden rest concatenate back to the text exactly (the rest stays in the page, findable by Ctrl+F). Markdown
 * is cut outside fenced code when it can be, and a fence left open by the cut is closed in the head and reopened
 * in the rest, so each half still renders as what it is.
 */

export interface Cut {
  head: string;
  rest: string;
}

/** Lines in a text (a trailing newline ends the last line, it does not start another). One pass, no split. */
export function countLines(text: string): number {
  if (text === '') return 0;
  let n = 1;
  for (let i = 0; i < text.length - 1; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}

/** The head ends after its last newline within `maxLines` lines and `maxChars` characters; null when all fits. */
export function cutPlain(text: string, maxLines: number, maxChars: number): Cut | null {
  if (text.length <= maxChars && countLines(text) <= maxLines) return null;
  let end = -1;
  let lines = 0;
  const limit = Math.min(text.length, maxChars);
  for (let i = 0; i < limit && lines < maxLines; i++) {
    if (text.charCodeAt(i) === 10) {
      lines++;
      end = i + 1;
    }
  }
  // One very long line (a minified file, a 10 MB log line): cut inside it rather than show it all.
  const at = end > 0 ? end : limit;
  return at < text.length ? { head: text.slice(0, at), rest: text.slice(at) } : null;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/**
 * Cuts markdown near `maxLines`: at the last blank line outside fenced code from half-way to `maxLines`, else
 * at `maxLines` itself. Texts under `maxLines` lines are not cut.
 */
export function cutMarkdown(text: string, maxLines: number): Cut | null {
  const lines = text.split('\n');
  if (lines.length <= maxLines) return null;
  let open: { marker: string; info: string } | null = null;
  let best = -1; // index of the first line of the rest
  const fenceAt: ({ marker: string; info: string } | null)[] = [];
  for (let i = 0; i < maxLines; i++) {
    const line = lines[i] ?? '';
    const m = FENCE.exec(line);
    if (m) {
      const marker = m[1] ?? '';
      if (!open) open = { marker, info: (m[2] ?? '').trim() };
      else if (marker[0] === open.marker[0] && marker.length >= open.marker.length && (m[2] ?? '').trim() === '') open = null;
    }
    fenceAt[i] = open;
    if (!open && line.trim() === '' && i >= maxLines / 2) best = i + 1;
  }
  const at = best > 0 ? best : maxLines;
  const inFence = fenceAt[at - 1] ?? null;
  const head = lines.slice(0, at).join('\n');
  const rest = lines.slice(at).join('\n');
  if (!inFence) return { head: `${head}\n`, rest };
  return { head: `${head}\n${inFence.marker}\n`, rest: `${inFence.marker}${inFence.info}\n${rest}` };
}
