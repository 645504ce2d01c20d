/**
 * Whether a text from a log is safe to hand to the markdown parser, decided by one linear scan before any parsing
 * (issue 38 item 1). The parser (micromark, then mdast → hast → React) recurses once per nested container, and
 * resolving emphasis costs more than linear in its delimiter runs: `>` x 3,000 or `- ` x 2,000 overflowed the
 * stack (2.5 s, then "Maximum call stack size exceeded"), `*a` x 49,000 took 96 s and `*a` x 10,000 3.2 s in Node
 * on this machine, a list indented 2 columns deeper on each of 300 lines (90 kB) took 3 s. Each bound is an upper
 * estimate of what the parser would build, so text under it parses in well under a second; text over it is shown
 * as plain text with the reason said.
 */

/** Above this a text is shown as plain text: parsing 100 kB of markdown takes ~100 ms, a megabyte would block typing. */
export const MARKDOWN_MAX_CHARS = 100_000;

/**
 * Most block containers (quotes, list items) one line may sit in. Real messages nest lists 3-5 deep; 40 still
 * lets YAML in a fence indent `- ` items by 78 columns. The stack overflowed near 2,000; the staircase of 300
 * levels took 3 s.
 */
export const MARKDOWN_MAX_DEPTH = 40;

/**
 * Most emphasis and bracket marks in one paragraph (see marksPerParagraph). 2,000 `*a` pairs in one paragraph
 * parsed in 0.6 s here, 10,000 in 3.2 s, and `[` x 30,000 then `]` x 30,000 in 36 s. A run of N `*` also nests up
 * to N/2 elements deep: 1,000 nested elements rendered where 4,000 overflowed the stack.
 */
export const MARKDOWN_MAX_MARKS = 2_000;

export type PlainReason = 'too-long' | 'too-deep' | 'too-many-marks';

/** What the reader is told when a text is shown as plain text instead of formatted. */
export const PLAIN_REASON_TEXT: Record<PlainReason | 'failed', string> = {
  'too-long': 'too long to format',
  'too-deep': 'nested too deeply to format',
  'too-many-marks': 'too many emphasis marks or brackets to format',
  failed: 'could not be formatted',
};

const SPACE = 32;
const TAB = 9;
const LF = 10;
const CR = 13;
const GT = 62;

const isBlank = (c: number): boolean => c === SPACE || c === TAB || c === LF || c === CR || Number.isNaN(c);
const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const isWordChar = (c: number): boolean =>
  isDigit(c) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c > 127 && !Number.isNaN(c));

/**
 * Upper bound on the containers the line starting at `start` sits in: its `>` and list markers, plus half the
 * columns of whitespace among them (each list level the line continues needs its content column, 2 or more).
 * A line whose prefix holds no marker opens nothing, so it is scored 0: its containers were opened on earlier
 * lines, which were scored. Returns the score and where the line ends.
 */
function lineDepth(text: string, start: number): { depth: number; end: number } {
  let i = start;
  let markers = 0;
  let columns = 0;
  for (;;) {
    const c = text.charCodeAt(i);
    if (c === SPACE) {
      columns++;
      i++;
    } else if (c === TAB) {
      columns += 4 - (columns % 4);
      i++;
    } else if (c === GT) {
      markers++;
      i++;
    } else if ((c === 45 || c === 42 || c === 43) && isBlank(text.charCodeAt(i + 1))) {
      // - * + followed by a space, a tab or the line's end
      markers++;
      i++;
    } else if (isDigit(c)) {
      let j = i;
      while (j - i < 9 && isDigit(text.charCodeAt(j))) j++;
      const d = text.charCodeAt(j);
      if ((d === 46 || d === 41) && isBlank(text.charCodeAt(j + 1))) {
        markers++;
        i = j + 1;
      } else break;
    } else break;
  }
  const nl = text.indexOf('\n', i);
  return { depth: markers === 0 ? 0 : markers + Math.floor(columns / 2), end: nl < 0 ? text.length : nl + 1 };
}

/**
 * The most marks in one paragraph-sized stretch of the text (lines between blank lines, where one paragraph's
 * inline content can lie): characters in `*` `_` `~` runs that the parser would weigh as openers or closers (not
 * a run with a space or the text's edge on both sides, nor `_` between two word characters), and `[` `]`. The
 * parser resolves each stretch's marks against all of that stretch's events, so the cost grows with the square
 * of this count, not with the text's length: 1,300 paragraphs of ordinary bold and links (94 kB) parsed in 2 s,
 * one paragraph of `*a` x 49,000 in 96 s.
 */
function marksPerParagraph(text: string): number {
  let most = 0;
  let marks = 0;
  let lineHasText = false;
  const n = text.length;
  for (let i = 0; i < n; ) {
    const c = text.charCodeAt(i);
    if (c === LF) {
      if (!lineHasText) {
        most = Math.max(most, marks);
        marks = 0;
      }
      lineHasText = false;
      i++;
      continue;
    }
    if (c !== SPACE && c !== TAB && c !== CR) lineHasText = true;
    if (c === 91 || c === 93) {
      marks++;
      i++;
      continue;
    }
    if (c !== 42 && c !== 95 && c !== 126) {
      i++;
      continue;
    }
    let j = i + 1;
    while (j < n && text.charCodeAt(j) === c) j++;
    const before = text.charCodeAt(i - 1);
    const after = text.charCodeAt(j);
    const inert = (isBlank(before) && isBlank(after)) || (c === 95 && isWordChar(before) && isWordChar(after));
    if (!inert) marks += j - i;
    i = j;
  }
  return Math.max(most, marks);
}

/** Why `text` must be shown as plain text, or null when it is safe to parse as markdown. Linear in its length. */
export function plainTextReason(text: string): PlainReason | null {
  if (text.length > MARKDOWN_MAX_CHARS) return 'too-long';
  for (let i = 0; i < text.length; ) {
    const { depth, end } = lineDepth(text, i);
    if (depth > MARKDOWN_MAX_DEPTH) return 'too-deep';
    i = end;
  }
  return marksPerParagraph(text) > MARKDOWN_MAX_MARKS ? 'too-many-marks' : null;
}
