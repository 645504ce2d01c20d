/**
 * Logs are read as UTF-8. A log saved as UTF-16 (Windows PowerShell 5 writes `>` and Out-File so; Notepad's
 * "Unicode") decodes to a NUL between every letter, which no importer takes: told as what it is, it is one
 * re-save away from importing.
 */

/** What the user reads about such a file (`path:1: UTF-16 text: save it as UTF-8`). */
export const UTF16_TEXT = 'UTF-16 text: save it as UTF-8';

export interface Utf16Head {
  encoding: 'utf-16le' | 'utf-16be';
  /** Marked by a byte order mark, rather than taken from where its NUL bytes fall. */
  bom: boolean;
}

/** Byte pairs looked at: a line or two of text is enough to see the NUL in each pair. */
const PAIRS = 512;

/**
 * The UTF-16 encoding the first bytes of a file are in, or null. With a byte order mark (FF FE, FE FF) that is
 * certain; without one, text mostly in the Latin range has a NUL in (nearly) every odd byte (little-endian) or
 * every even one (big-endian) and (nearly) none in the other, which binary files (SQLite, zip) do not.
 */
export function utf16Head(head: Uint8Array): Utf16Head | null {
  if (head[0] === 0xff && head[1] === 0xfe) return { encoding: 'utf-16le', bom: true };
  if (head[0] === 0xfe && head[1] === 0xff) return { encoding: 'utf-16be', bom: true };
  const pairs = Math.min(PAIRS, Math.floor(head.length / 2));
  if (pairs < 4) return null;
  let evenNul = 0;
  let oddNul = 0;
  for (let i = 0; i < pairs; i++) {
    if (head[2 * i] === 0) evenNul++;
    if (head[2 * i + 1] === 0) oddNul++;
  }
  const most = pairs * 0.5;
  const few = pairs * 0.05;
  if (oddNul >= most && evenNul <= few) return { encoding: 'utf-16le', bom: false };
  if (evenNul >= most && oddNul <= few) return { encoding: 'utf-16be', bom: false };
  return null;
}

/** The head decoded as the UTF-16 it is (the byte order mark dropped), to ask the importers whether it is a log. */
export function decodeUtf16(head: Uint8Array, as: Utf16Head): string {
  return new TextDecoder(as.encoding).decode(head);
}
