/**
 * Python's `json.dump` writes non-finite floats as the bare words `NaN`, `Infinity` and `-Infinity`, which
 * JSON does not have. MTRouter's learned router logs `-Infinity` for a model its estimator does not score, so
 * its trajectories need them read. Exactly those three words, standing as a value (after `:`, `,` or `[`)
 * outside strings, are rewritten to JSON before parsing: `-Infinity` → `-1e999` and `Infinity` → `1e999`
 * (which JSON.parse reads as ±Infinity) and `NaN` → `null` (no number). Anything else that is not JSON still
 * fails the parse with its line; no newline is added or removed, so lines stay where they were.
 *
 * The scan runs only on texts that contain one of the words: ~110 MB/s here, about a quarter of JSON.parse's
 * speed on the same bytes (a regex over strings and words measured the same, so the plain loop stays).
 */

const WORDS = ['-Infinity', 'Infinity', 'NaN'] as const;
const REPLACEMENT: Record<(typeof WORDS)[number], string> = { '-Infinity': '-1e999', Infinity: '1e999', NaN: 'null' };

const isSpace = (c: number): boolean => c === 32 || c === 10 || c === 13 || c === 9;
const isWordChar = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;

/** The text with Python's non-finite float words made JSON; the same string when it has none. */
export function pythonJsonText(text: string): string {
  if (!text.includes('NaN') && !text.includes('Infinity')) return text;
  const parts: string[] = [];
  let copied = 0;
  let lastSignificant = 0; // char code of the last non-space character outside strings
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      for (i++; i < text.length && text.charCodeAt(i) !== 34; i++) if (text.charCodeAt(i) === 92) i++;
      lastSignificant = 34;
      continue;
    }
    if (isSpace(c)) continue;
    if ((c === 45 || c === 73 || c === 78) && (lastSignificant === 58 || lastSignificant === 44 || lastSignificant === 91)) {
      const word = WORDS.find((w) => text.startsWith(w, i));
      if (word && !isWordChar(text.charCodeAt(i + word.length))) {
        parts.push(text.slice(copied, i), REPLACEMENT[word]);
        i += word.length - 1;
        copied = i + 1;
        lastSignificant = 48; // a value ended here
        continue;
      }
    }
    lastSignificant = c;
  }
  if (copied === 0) return text;
  parts.push(text.slice(copied));
  return parts.join('');
}
