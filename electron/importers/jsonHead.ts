/**
 * A sniff of the start of a JSON document for importers' `detect`: the keys (and short string values) of
 * the top-level object, or of the first element of a top-level array, read from a head that may stop in
 * the middle of a value. Nested values are skipped without being built, so it costs one pass over at most
 * the 64 KiB head and never throws.
 */

export interface JsonHead {
  /** What the document opens with; null when it is not JSON-looking at all. */
  container: 'object' | 'array' | null;
  /** Keys of the top-level object (or of the array's first element), in order, as far as the head reaches. */
  keys: string[];
  /** String values of those keys, when the value is a string of at most 300 characters. */
  strings: Map<string, string>;
  /** True when that object closed inside the head (so a missing key is really missing). */
  complete: boolean;
}

const MAX_STRING_VALUE = 300;

export function sniffJsonHead(head: string): JsonHead {
  const result: JsonHead = { container: null, keys: [], strings: new Map(), complete: false };
  const n = head.length;
  let pos = head.charCodeAt(0) === 0xfeff ? 1 : 0;
  const skipWs = (): void => {
    while (pos < n && /\s/.test(head[pos] ?? '')) pos++;
  };
  /** Reads the string at `pos` (on its opening quote); null when the head ends inside it. */
  const readString = (): string | null => {
    const start = pos;
    pos++;
    let escaped = false;
    while (pos < n) {
      const c = head.charCodeAt(pos);
      if (c === 92) {
        escaped = true;
        pos += 2;
      } else if (c === 34) {
        pos++;
        const raw = head.slice(start + 1, pos - 1);
        if (!escaped) return raw;
        try {
          return String(JSON.parse(head.slice(start, pos)));
        } catch {
          return raw;
        }
      } else pos++;
    }
    return null;
  };

  skipWs();
  const open = head[pos];
  if (open === '[') {
    result.container = 'array';
    pos++;
    skipWs();
    if (head[pos] !== '{') return result;
  } else if (open === '{') {
    result.container = 'object';
  } else {
    return result;
  }
  pos++; // into the object whose keys we collect

  // Depth is counted relative to that object (0 = directly inside it).
  let depth = 0;
  let expectKey = true;
  let currentKey: string | null = null;
  while (pos < n) {
    const c = head[pos];
    if (c === '"') {
      const atValueStart = depth === 0 && !expectKey && currentKey !== null;
      const s = readString();
      if (s === null) return result;
      if (depth === 0 && expectKey) {
        result.keys.push(s);
        currentKey = s;
        expectKey = false;
      } else if (atValueStart && currentKey !== null && s.length <= MAX_STRING_VALUE) {
        result.strings.set(currentKey, s);
      }
      continue;
    }
    if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      if (depth === 0) {
        result.complete = true;
        return result;
      }
      depth--;
    } else if (c === ',' && depth === 0) {
      expectKey = true;
      currentKey = null;
    }
    pos++;
  }
  return result;
}
