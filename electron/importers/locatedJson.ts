/**
 * A JSON parser that remembers where things are: the line of every object and array, and the line of
 * every object key, so an importer that finds a wrong value deep inside a pretty-printed document can
 * still say `file:line: reason`. It also accepts several top-level values one after another (what
 * console span exporters print), bounds nesting depth instead of overflowing the stack, and never lets
 * a `__proto__` key touch a prototype.
 *
 * Strings without escapes are sliced directly and escaped ones are decoded by JSON.parse, so the cost
 * is close to a scan of the text; JSON Lines files should still use JSON.parse per line (faster, and
 * every error is on that line anyway).
 */

/** A syntax or nesting error at a 1-based line (`reason` is ready to show); importers turn it into an ImportError. */
export class JsonSyntaxError extends Error {
  constructor(
    readonly line: number,
    readonly reason: string,
  ) {
    super(`line ${line}: ${reason}`);
    this.name = 'JsonSyntaxError';
  }
}

export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

export interface LocatedJson {
  /** The top-level values in document order, each with the line it starts on. */
  values: { value: Json; line: number }[];
  /** Line of an object or array from this parse (the line of its opening bracket), else `fallback`. */
  lineOf(value: unknown, fallback: number): number;
  /** Line of `key` inside `object`, else the object's line, else `fallback`. */
  keyLine(object: unknown, key: string, fallback: number): number;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
// JSON forbids raw control characters inside strings; this is the check, so the control range is the point.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f]/;
const LITERALS: [string, Json][] = [['true', true], ['false', false], ['null', null]];

export function parseLocatedJson(text: string, options: { maxDepth?: number; firstLine?: number } = {}): LocatedJson {
  const maxDepth = options.maxDepth ?? 100;
  // Plain Maps: they live exactly as long as the parse result. (A 63 MB pretty-printed OTLP file of 50k spans
  // parses in ~3 s here against 0.3 s for JSON.parse; JSON Lines exports take the JSON.parse path.)
  const lines = new Map<object, number>();
  const keyLines = new Map<object, Map<string, number>>();
  let pos = 0;
  let line = options.firstLine ?? 1;

  const fail = (reason: string): never => {
    throw new JsonSyntaxError(line, `invalid JSON: ${reason}`);
  };
  const describe = (): string => (pos >= text.length ? 'unexpected end of input' : `unexpected ${JSON.stringify(text[pos])}`);

  const skipWs = (): void => {
    for (; pos < text.length; pos++) {
      const c = text.charCodeAt(pos);
      if (c === 10) line++;
      else if (c !== 32 && c !== 9 && c !== 13) break;
    }
  };

  const parseString = (): string => {
    const start = pos + 1;
    let end = text.indexOf('"', start);
    if (end === -1) fail('unterminated string');
    // Look for a backslash inside this string only: searching the rest of the text made a file of many
    // short strings quadratic (2.4 MB of `"` took 18 s; fuzz.attack.test.ts).
    const s = text.slice(start, end);
    if (!s.includes('\\')) {
      if (CONTROL.test(s)) fail('control character or line break inside a string');
      pos = end + 1;
      return s;
    }
    // Escapes: find the closing quote that is not escaped, then let JSON.parse decode the literal.
    let i = start;
    for (;;) {
      if (i >= text.length) fail('unterminated string');
      const c = text.charCodeAt(i);
      if (c === 92) i += 2;
      else if (c === 34) break;
      else i++;
    }
    end = i;
    const literal = text.slice(start - 1, end + 1);
    if (CONTROL.test(literal)) fail('control character or line break inside a string');
    pos = end + 1;
    try {
      return JSON.parse(literal) as string;
    } catch {
      return fail('invalid escape in string');
    }
  };

  const parseValue = (depth: number): Json => {
    skipWs();
    const c = text[pos];
    if (c === '{' || c === '[') {
      if (depth >= maxDepth) throw new JsonSyntaxError(line, `JSON nested deeper than ${maxDepth} levels`);
      return c === '{' ? parseObject(depth + 1) : parseArray(depth + 1);
    }
    if (c === '"') return parseString();
    for (const [word, value] of LITERALS) {
      if (text.startsWith(word, pos)) {
        pos += word.length;
        return value;
      }
    }
    NUMBER.lastIndex = pos;
    const m = NUMBER.exec(text);
    if (!m) return fail(describe());
    pos += m[0].length;
    return Number(m[0]);
  };

  const parseObject = (depth: number): Json => {
    const obj: { [key: string]: Json } = {};
    const keys = new Map<string, number>();
    lines.set(obj, line);
    keyLines.set(obj, keys);
    pos++;
    skipWs();
    if (text[pos] === '}') {
      pos++;
      return obj;
    }
    for (;;) {
      skipWs();
      if (text[pos] !== '"') fail(`expected a property name, ${describe()}`);
      const keyAt = line;
      const key = parseString();
      skipWs();
      if (text[pos] !== ':') fail(`expected ':' after property name, ${describe()}`);
      pos++;
      const value = parseValue(depth);
      if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
      else obj[key] = value;
      keys.set(key, keyAt);
      skipWs();
      if (text[pos] === ',') {
        pos++;
        continue;
      }
      if (text[pos] === '}') {
        pos++;
        return obj;
      }
      fail(`expected ',' or '}', ${describe()}`);
    }
  };

  const parseArray = (depth: number): Json => {
    const arr: Json[] = [];
    lines.set(arr, line);
    pos++;
    skipWs();
    if (text[pos] === ']') {
      pos++;
      return arr;
    }
    for (;;) {
      arr.push(parseValue(depth));
      skipWs();
      if (text[pos] === ',') {
        pos++;
        continue;
      }
      if (text[pos] === ']') {
        pos++;
        return arr;
      }
      fail(`expected ',' or ']', ${describe()}`);
    }
  };

  if (text.charCodeAt(0) === 0xfeff) pos = 1;
  const values: { value: Json; line: number }[] = [];
  skipWs();
  while (pos < text.length) {
    const at = line;
    values.push({ value: parseValue(0), line: at });
    skipWs();
  }
  if (values.length === 0) fail('no JSON value');

  return {
    values,
    lineOf: (value, fallback) => (typeof value === 'object' && value !== null ? (lines.get(value) ?? fallback) : fallback),
    keyLine: (object, key, fallback) => {
      if (typeof object !== 'object' || object === null) return fallback;
      return keyLines.get(object)?.get(key) ?? lines.get(object) ?? fallback;
    },
  };
}

/**
 * True when a parsed value nests deeper than `maxDepth` arrays and objects. JSON.parse accepts any depth, but
 * JSON.stringify and every recursive walk over the value overflow the stack at a few thousand levels; JSON
 * Lines readers check each parsed line with this (iteratively) to hold the same limit as parseLocatedJson.
 */
export function nestedDeeperThan(value: unknown, maxDepth: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (typeof v !== 'object' || v === null) continue;
    if (depth >= maxDepth) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}
