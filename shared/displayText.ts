/**
 * Text from logs shown to a person: run, model, tool and task names, episode ids, warnings and reasons that
 * quote them. Such text is untrusted (DESIGN §12), and some characters in it act instead of showing: an ESC
 * or a C1 CSI (U+009B) starts a terminal command (set the window title, clear the screen, print a
 * hyperlink), BEL rings, CR and bidi overrides (U+202E) redraw a line so it reads differently, and
 * zero-width or other invisible characters make `gpt\u200b-5` look exactly like `gpt-5`.
 *
 * One rule, the same in the terminal, in CSV and in the window: every such character is shown as the
 * escape JavaScript and JSON use for it (`\n`, `\t`, `\r`, `\b`, `\f`, else `\uXXXX` in lower-case hex;
 * a character beyond U+FFFF as its two UTF-16 halves, `\udb40\udc41`). So `ESC ] 0 ; t BEL` prints as
 * `\u001b]0;t\u0007`: the sequence is visible and inert. Escaped are
 * - controls: C0 (U+0000–U+001F), DEL, C1 (U+0080–U+009F, CSI U+009B among them);
 * - format characters (\p{Cf}): bidi embeddings, overrides and isolates, zero-width space / joiners, word
 *   joiner, soft hyphen, BOM, tag characters;
 * - every other default-ignorable code point (variation selectors, Hangul fillers, CGJ, …) and the line and
 *   paragraph separators U+2028 / U+2029;
 * - white space other than the plain space (NBSP, thin and other typographic spaces);
 * - lone surrogates (a broken UTF-16 half cannot be encoded as UTF-8).
 * A backslash itself is left as it is (paths on Windows stay readable), so the text `\u200b` typed into a
 * name and an actual U+200B print the same; the window tells them apart (it marks the real one).
 *
 * Because the escapes are JSON's, a JSON document passed through `visibleLines` stays valid JSON with the
 * same value (JSON.stringify writes these characters only inside strings), so the CLI's one output filter
 * serves `--json` too.
 */

/**
 * Characters shown as escapes: the controls (\p{Cc} is exactly U+0000–U+001F and U+007F–U+009F), \p{Cf},
 * lone surrogates, U+2028 / U+2029, the default-ignorables and the white space other than U+0020 (U+0085
 * is a control already). One character class, no look-ahead: 290 ms over a 25 MB JSON document with
 * accented text (JSON.stringify of it: 140 ms), where the look-ahead form took 470 ms and a class of
 * explicit ranges 200 ms. `u` makes a surrogate pair one character and a lone half match \p{Cs}.
 */
const HIDDEN =
  // eslint-disable-next-line no-control-regex -- finding control characters is this module's job
  /[\u0000-\u001f\u007f-\u009f\p{Cf}\p{Cs}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]/gu;
/** The same, less the line feed: for messages that are meant to span lines. */
const HIDDEN_BUT_NEWLINE =
  // eslint-disable-next-line no-control-regex -- finding control characters is this module's job
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\p{Cf}\p{Cs}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]/gu;

const SHORT: Record<string, string> = { '\b': '\\b', '\t': '\\t', '\n': '\\n', '\f': '\\f', '\r': '\\r' };

function escapeOne(ch: string): string {
  const short = SHORT[ch];
  if (short !== undefined) return short;
  let s = '';
  for (let i = 0; i < ch.length; i++) s += `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return s;
}

/**
 * One value (a name, an id, a path, a one-line message) as text that shows every character it holds and
 * drives nothing: safe to print on a terminal and to put in a CSV cell. Line breaks are escaped too, so a
 * name never starts a new line. Text without such characters is returned unchanged.
 */
export function visibleText(text: string): string {
  HIDDEN.lastIndex = 0;
  return HIDDEN.test(text) ? text.replace(HIDDEN, escapeOne) : text;
}

/** As `visibleText`, but line feeds stay line feeds: for a message of several lines (a help text, a table). */
export function visibleLines(text: string): string {
  HIDDEN_BUT_NEWLINE.lastIndex = 0;
  return HIDDEN_BUT_NEWLINE.test(text) ? text.replace(HIDDEN_BUT_NEWLINE, escapeOne) : text;
}

/** Names of the characters people meet most; others are named by their code point only. */
const NAMES: Record<number, string> = {
  0x09: 'CHARACTER TABULATION', 0x0a: 'LINE FEED', 0x0d: 'CARRIAGE RETURN', 0x1b: 'ESCAPE', 0x07: 'BELL', 0x7f: 'DELETE',
  0x9b: 'CONTROL SEQUENCE INTRODUCER', 0x9d: 'OPERATING SYSTEM COMMAND', 0xa0: 'NO-BREAK SPACE', 0xad: 'SOFT HYPHEN',
  0x034f: 'COMBINING GRAPHEME JOINER', 0x061c: 'ARABIC LETTER MARK', 0x115f: 'HANGUL CHOSEONG FILLER', 0x1160: 'HANGUL JUNGSEONG FILLER',
  0x180e: 'MONGOLIAN VOWEL SEPARATOR', 0x200b: 'ZERO WIDTH SPACE', 0x200c: 'ZERO WIDTH NON-JOINER', 0x200d: 'ZERO WIDTH JOINER',
  0x200e: 'LEFT-TO-RIGHT MARK', 0x200f: 'RIGHT-TO-LEFT MARK', 0x2028: 'LINE SEPARATOR', 0x2029: 'PARAGRAPH SEPARATOR',
  0x202a: 'LEFT-TO-RIGHT EMBEDDING', 0x202b: 'RIGHT-TO-LEFT EMBEDDING', 0x202c: 'POP DIRECTIONAL FORMATTING',
  0x202d: 'LEFT-TO-RIGHT OVERRIDE', 0x202e: 'RIGHT-TO-LEFT OVERRIDE', 0x202f: 'NARROW NO-BREAK SPACE', 0x2060: 'WORD JOINER',
  0x2061: 'FUNCTION APPLICATION', 0x2062: 'INVISIBLE TIMES', 0x2063: 'INVISIBLE SEPARATOR', 0x2064: 'INVISIBLE PLUS',
  0x2066: 'LEFT-TO-RIGHT ISOLATE', 0x2067: 'RIGHT-TO-LEFT ISOLATE', 0x2068: 'FIRST STRONG ISOLATE', 0x2069: 'POP DIRECTIONAL ISOLATE',
  0x3000: 'IDEOGRAPHIC SPACE', 0x3164: 'HANGUL FILLER', 0xfe0f: 'VARIATION SELECTOR-16', 0xfeff: 'ZERO WIDTH NO-BREAK SPACE',
};

/** A piece of a name: text shown as it is, or one hidden character with its escape and a description. */
export type VisiblePart = { text: string } | { hidden: string; escape: string; description: string };

function codePointLabel(ch: string): string {
  const cp = ch.codePointAt(0) ?? 0;
  const hex = cp.toString(16).toUpperCase().padStart(4, '0');
  const name = NAMES[cp];
  return name ? `U+${hex} ${name}` : `U+${hex}`;
}

/**
 * A name cut into plain text and hidden characters, for the window to draw each hidden one as a visible
 * marker (its escape, as in the terminal) with its Unicode name in a tooltip. Plain names give one part.
 */
export function visibleParts(text: string): VisiblePart[] {
  const parts: VisiblePart[] = [];
  let last = 0;
  for (const m of text.matchAll(HIDDEN)) {
    const at = m.index ?? 0;
    if (at > last) parts.push({ text: text.slice(last, at) });
    parts.push({ hidden: m[0], escape: escapeOne(m[0]), description: codePointLabel(m[0]) });
    last = at + m[0].length;
  }
  if (last < text.length || parts.length === 0) parts.push({ text: text.slice(last) });
  return parts;
}

/** "contains U+200B ZERO WIDTH SPACE, U+202E RIGHT-TO-LEFT OVERRIDE", or null when every character shows. */
export function hiddenCharactersNote(text: string): string | null {
  const labels = [...new Set([...text.matchAll(HIDDEN)].map((m) => codePointLabel(m[0])))];
  return labels.length ? `contains ${labels.join(', ')}` : null;
}
