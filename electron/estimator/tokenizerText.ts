/**
 * The text stages of a Hugging Face `tokenizer.json` (the `tokenizers` library's pipeline), for the sentence-
 * embedding models `onnx-text:DIR` runs: normalizers (string → string) and pre-tokenizers (string → words).
 * Offsets are not tracked: the encoder needs ids only.
 *
 * Supported, by `type`:
 *   normalizer     BertNormalizer, Lowercase, NFC, NFD, NFKC, NFKD, StripAccents, Strip, Replace, Prepend, Sequence
 *   pre_tokenizer  BertPreTokenizer, ByteLevel, Split, Whitespace, WhitespaceSplit, Punctuation, Digits, Sequence
 * Anything else is refused by name (TokenizerError), never silently skipped.
 *
 * Regexes in tokenizer.json are Oniguruma's (the Rust library's engine); the ones tokenizers ship differ from
 * JavaScript's only in scoped flags `(?i:…)`, which Node 20 lacks, so `onigToJs` spells them out as classes.
 */
import { z } from 'zod';

export class TokenizerError extends Error {
  override name = 'TokenizerError';
}

export type Normalizer = (text: string) => string;
export type PreTokenizer = (words: string[]) => string[];

const patternSchema = z.union([z.object({ String: z.string() }), z.object({ Regex: z.string() })]);
type Pattern = z.infer<typeof patternSchema>;

function parse<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const r = schema.safeParse(value);
  if (!r.success) throw new TokenizerError(`${what}: ${r.error.issues.map((i) => `${i.path.join('.') || '(root)'} ${i.message}`).join('; ')}`);
  return r.data;
}

function typeOf(spec: unknown, what: string): string {
  const t = (spec as { type?: unknown } | null)?.type;
  if (typeof t !== 'string') throw new TokenizerError(`${what} has no "type"`);
  return t;
}

// ---------------------------------------------------------------- character classes (as the Rust library)

/** A per-character predicate from a one-character regex, memoised for the BMP (a regex test per character
 * is what made tokenising slow). */
function charTest(re: RegExp): (ch: string) => boolean {
  const memo = new Uint8Array(65536); // 0 unknown, 1 false, 2 true
  return (ch) => {
    if (ch.length !== 1) return re.test(ch);
    const c = ch.charCodeAt(0);
    let v = memo[c] as number;
    if (!v) memo[c] = v = re.test(ch) ? 2 : 1;
    return v === 2;
  };
}

/** `char::is_whitespace` for the BERT stages: \t \n \r and Unicode space separators. */
const isBertWhitespace = charTest(/^[\t\n\r\p{Zs}]$/u);
/** Control characters that BERT's clean_text drops (Unicode category C*, except \t \n \r). */
const isBertControl = charTest(/^[\p{C}]$/u);
/** ASCII punctuation (incl. $+<=>^`|~, which Unicode calls symbols) or any Unicode punctuation. */
const isPunctuation = charTest(/^[!-/:-@[-`{-~\p{P}]$/u);
/** Rust's `char::is_whitespace` (the White_Space property). */
const isWhiteSpace = charTest(/^\s$/u);

function isCjk(cp: number): boolean {
  return (
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x20000 && cp <= 0x2a6df) ||
    (cp >= 0x2a700 && cp <= 0x2b73f) ||
    (cp >= 0x2b740 && cp <= 0x2b81f) ||
    (cp >= 0x2b920 && cp <= 0x2ceaf) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0x2f800 && cp <= 0x2fa1f)
  );
}

const stripAccents = (s: string): string => s.normalize('NFD').replace(/\p{Mn}/gu, '');

// ---------------------------------------------------------------- normalizers

const bertNormalizerSchema = z.looseObject({
  clean_text: z.boolean().default(true),
  handle_chinese_chars: z.boolean().default(true),
  strip_accents: z.boolean().nullable().default(null),
  lowercase: z.boolean().default(true),
});

export function buildNormalizer(spec: unknown, what = 'normalizer'): Normalizer | null {
  if (spec === null || spec === undefined) return null;
  const type = typeOf(spec, what);
  switch (type) {
    case 'BertNormalizer': {
      const o = parse(bertNormalizerSchema, spec, what);
      const strip = o.strip_accents ?? o.lowercase;
      return (text) => {
        let out = '';
        for (const ch of text) {
          const cp = ch.codePointAt(0) as number;
          if (o.clean_text) {
            if (cp === 0 || cp === 0xfffd || (isBertControl(ch) && !isBertWhitespace(ch))) continue;
            if (isBertWhitespace(ch)) {
              out += ' ';
              continue;
            }
          }
          out += o.handle_chinese_chars && isCjk(cp) ? ` ${ch} ` : ch;
        }
        if (strip) out = stripAccents(out);
        return o.lowercase ? out.toLowerCase() : out;
      };
    }
    case 'Lowercase':
      return (s) => s.toLowerCase();
    case 'NFC':
    case 'NFD':
    case 'NFKC':
    case 'NFKD':
      return (s) => s.normalize(type);
    case 'StripAccents':
      // The library removes combining marks only; models put NFD before it in a Sequence.
      return (s) => s.replace(/\p{Mn}/gu, '');
    case 'Strip': {
      const o = parse(z.looseObject({ strip_left: z.boolean().default(true), strip_right: z.boolean().default(true) }), spec, what);
      return (s) => (o.strip_left ? (o.strip_right ? s.trim() : s.trimStart()) : o.strip_right ? s.trimEnd() : s);
    }
    case 'Replace': {
      const o = parse(z.looseObject({ pattern: patternSchema, content: z.string() }), spec, what);
      const re = patternRegex(o.pattern, what);
      return (s) => s.replace(re, () => o.content);
    }
    case 'Prepend': {
      const o = parse(z.looseObject({ prepend: z.string() }), spec, what);
      return (s) => (s.length ? o.prepend + s : s);
    }
    case 'Sequence': {
      const o = parse(z.looseObject({ normalizers: z.array(z.unknown()) }), spec, what);
      const steps = o.normalizers.map((n, i) => buildNormalizer(n, `${what}.normalizers[${i}]`)).filter((n): n is Normalizer => n !== null);
      return (s) => steps.reduce((acc, f) => f(acc), s);
    }
    default:
      throw new TokenizerError(
        `${what} type "${type}" is not supported (supported: BertNormalizer, Lowercase, NFC, NFD, NFKC, NFKD, StripAccents, Strip, Replace, Prepend, Sequence)`,
      );
  }
}

// ---------------------------------------------------------------- regexes

/**
 * An Oniguruma pattern as a JavaScript one (flags `gu`): `(?i:…)` groups become case-folded character
 * classes; `(?i)` at the start becomes the `i` flag. Throws TokenizerError when JavaScript cannot compile it.
 */
export function onigToJs(source: string, what: string): RegExp {
  let flags = 'gu';
  let src = source;
  if (src.startsWith('(?i)')) {
    flags += 'i';
    src = src.slice(4);
  }
  let out = '';
  let inClass = false;
  const scopes: boolean[] = []; // per open group: does it fold case?
  let fold = 0; // open case-folding groups
  for (let i = 0; i < src.length; i++) {
    const c = src[i] as string;
    if (c === '\\') {
      out += c + (src[i + 1] ?? '');
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      out += c;
      if (fold && c !== ']' && c.toLowerCase() !== c.toUpperCase()) out += c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase();
      continue;
    }
    if (c === '[') {
      inClass = true;
      out += c;
      if (src[i + 1] === '^') {
        out += '^';
        i++;
      }
      continue;
    }
    if (c === '(') {
      if (src.startsWith('(?i:', i)) {
        scopes.push(true);
        fold++;
        out += '(?:';
        i += 3;
        continue;
      }
      scopes.push(false);
      out += c;
      continue;
    }
    if (c === ')') {
      if (scopes.pop()) fold--;
      out += c;
      continue;
    }
    if (fold && c.toLowerCase() !== c.toUpperCase()) {
      out += `[${c.toLowerCase()}${c.toUpperCase()}]`;
      continue;
    }
    out += c;
  }
  try {
    return new RegExp(out, flags);
  } catch (e) {
    throw new TokenizerError(`${what}: pattern ${JSON.stringify(source)} cannot be compiled (${e instanceof Error ? e.message : String(e)})`);
  }
}

function patternRegex(p: Pattern, what: string): RegExp {
  return 'String' in p ? new RegExp(p.String.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gu') : onigToJs(p.Regex, what);
}

// ---------------------------------------------------------------- splitting

type Behavior = 'Removed' | 'Isolated' | 'MergedWithPrevious' | 'MergedWithNext' | 'Contiguous';
const behaviorSchema = z.enum(['Removed', 'Isolated', 'MergedWithPrevious', 'MergedWithNext', 'Contiguous']);

/**
 * `s` cut at the spans `isMatch` marks, as the library's `NormalizedString::split(pattern, behavior)`:
 * `spans` alternate between non-matches and matches and cover `s`.
 */
function splitSpans(spans: { text: string; match: boolean }[], behavior: Behavior): string[] {
  const out: string[] = [];
  switch (behavior) {
    case 'Removed':
      for (const p of spans) if (!p.match && p.text) out.push(p.text);
      break;
    case 'Isolated':
      for (const p of spans) if (p.text) out.push(p.text);
      break;
    case 'Contiguous': {
      let prevMatch: boolean | null = null;
      for (const p of spans) {
        if (!p.text) continue;
        if (p.match && prevMatch === true) out[out.length - 1] += p.text;
        else out.push(p.text);
        prevMatch = p.match;
      }
      break;
    }
    case 'MergedWithPrevious': {
      let prevMatch = false;
      for (const p of spans) {
        if (!p.text) continue;
        if (p.match && out.length && !prevMatch) out[out.length - 1] += p.text;
        else out.push(p.text);
        prevMatch = p.match;
      }
      break;
    }
    case 'MergedWithNext': {
      let carry = '';
      for (const p of spans) {
        if (!p.text) continue;
        if (p.match) {
          if (carry) out.push(carry);
          carry = p.text;
        } else {
          out.push(carry + p.text);
          carry = '';
        }
      }
      if (carry) out.push(carry);
      break;
    }
  }
  return out;
}

/** Matches of `re` (global) in `s` as alternating spans; `invert` swaps which spans count as matches. */
function regexSpans(s: string, re: RegExp, invert: boolean): { text: string; match: boolean }[] {
  const spans: { text: string; match: boolean }[] = [];
  let last = 0;
  re.lastIndex = 0;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    if (m[0].length === 0) {
      re.lastIndex++;
      continue;
    }
    if (m.index > last) spans.push({ text: s.slice(last, m.index), match: invert });
    spans.push({ text: m[0], match: !invert });
    last = m.index + m[0].length;
  }
  if (last < s.length) spans.push({ text: s.slice(last), match: invert });
  return spans;
}

/** Per-character spans: runs of characters for which `test` is false, and each character for which it is true. */
function charSpans(s: string, test: (ch: string) => boolean): { text: string; match: boolean }[] {
  const spans: { text: string; match: boolean }[] = [];
  let run = '';
  for (const ch of s) {
    if (test(ch)) {
      if (run) spans.push({ text: run, match: false });
      run = '';
      spans.push({ text: ch, match: true });
    } else run += ch;
  }
  if (run) spans.push({ text: run, match: false });
  return spans;
}

// ---------------------------------------------------------------- byte level

/** GPT-2's byte → printable character table (bytes_to_unicode). */
export const BYTE_TO_CHAR: readonly string[] = (() => {
  const table: string[] = new Array(256);
  let n = 0;
  for (let b = 0; b < 256; b++) {
    const printable = (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
    table[b] = String.fromCodePoint(printable ? b : 256 + n++);
  }
  return table;
})();

const utf8 = new TextEncoder();

export function byteLevelChars(s: string): string {
  let out = '';
  for (const b of utf8.encode(s)) out += BYTE_TO_CHAR[b];
  return out;
}

/** GPT-2's split, used by ByteLevel when use_regex is true. */
export const GPT2_PATTERN = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

// ---------------------------------------------------------------- pre-tokenizers

/** What the pipeline needs to know about the pre-tokenizer besides the function. */
export interface PreTokenizerInfo {
  run: PreTokenizer;
  /** A ByteLevel step is present: the model's vocabulary is in GPT-2's byte alphabet. */
  byteLevel: boolean;
}

export function buildPreTokenizer(spec: unknown, what = 'pre_tokenizer'): PreTokenizerInfo | null {
  if (spec === null || spec === undefined) return null;
  const type = typeOf(spec, what);
  const each =
    (f: (w: string) => string[]): PreTokenizer =>
    (words) =>
      words.flatMap(f);
  switch (type) {
    case 'BertPreTokenizer':
      return {
        byteLevel: false,
        run: each((w) =>
          splitSpans(
            charSpans(w, (ch) => isWhiteSpace(ch) || isPunctuation(ch)).map((p) => (p.match && isWhiteSpace(p.text) ? { text: '', match: true } : p)),
            'Isolated',
          ),
        ),
      };
    case 'Whitespace': {
      const re = /[\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}]+|[^\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}\s]+/gu;
      return { byteLevel: false, run: each((w) => w.match(re) ?? []) };
    }
    case 'WhitespaceSplit':
      return { byteLevel: false, run: each((w) => w.split(/\s+/u).filter(Boolean)) };
    case 'Punctuation': {
      const o = parse(z.looseObject({ behavior: behaviorSchema.default('Isolated') }), spec, what);
      return { byteLevel: false, run: each((w) => splitSpans(charSpans(w, isPunctuation), o.behavior)) };
    }
    case 'Digits': {
      const o = parse(z.looseObject({ individual_digits: z.boolean().default(false) }), spec, what);
      const re = o.individual_digits ? /\p{Nd}/gu : /\p{Nd}+/gu;
      return { byteLevel: false, run: each((w) => splitSpans(regexSpans(w, re, false), 'Isolated')) };
    }
    case 'Split': {
      const o = parse(z.looseObject({ pattern: patternSchema, behavior: behaviorSchema, invert: z.boolean().default(false) }), spec, what);
      const re = patternRegex(o.pattern, what);
      return { byteLevel: false, run: each((w) => splitSpans(regexSpans(w, re, o.invert), o.behavior)) };
    }
    case 'ByteLevel': {
      const o = parse(z.looseObject({ add_prefix_space: z.boolean().default(true), use_regex: z.boolean().default(true) }), spec, what);
      const re = o.use_regex ? onigToJs(GPT2_PATTERN, what) : null;
      return {
        byteLevel: true,
        run: each((w) => {
          const text = o.add_prefix_space && !w.startsWith(' ') ? ` ${w}` : w;
          const parts = re ? splitSpans(regexSpans(text, re, false), 'Isolated') : [text];
          return parts.map(byteLevelChars);
        }),
      };
    }
    case 'Sequence': {
      const o = parse(z.looseObject({ pretokenizers: z.array(z.unknown()) }), spec, what);
      const steps = o.pretokenizers.map((p, i) => buildPreTokenizer(p, `${what}.pretokenizers[${i}]`)).filter((p): p is PreTokenizerInfo => p !== null);
      return { byteLevel: steps.some((s) => s.byteLevel), run: (words) => steps.reduce((acc, s) => s.run(acc), words) };
    }
    default:
      throw new TokenizerError(
        `${what} type "${type}" is not supported (supported: BertPreTokenizer, ByteLevel, Split, Whitespace, WhitespaceSplit, Punctuation, Digits, Sequence)`,
      );
  }
}
