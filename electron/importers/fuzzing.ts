/**
 * Mutations of real log files for the importer fuzz tests (fuzz.attack.test.ts), as fast-check arbitraries, so a
 * failing case shrinks and replays from its seed. Three families:
 *
 * - bytes: truncation, random bytes spliced in, invalid UTF-8, a huge line, deep nesting, a range deleted or
 *   repeated, or a file of random bytes;
 * - JSON: one value somewhere in the document (or in one line of a JSON Lines file) replaced by a value of
 *   another type, a huge or hostile string, a deep array, a `__proto__` object, or removed;
 * - XML (Uno transcripts) and ZIP (Inspect `.eval`): self- and mutually-referencing plans, entity bombs,
 *   members replaced by mutated JSON, lying declared sizes (zip bombs), thousands of members.
 *
 * Every mutation is bounded (a few MB at most) so a run of hundreds of cases stays within seconds.
 */
import fc from 'fast-check';
import { unzipSync, zipSync, type Zippable } from 'fflate';

export interface Mutation {
  /** Short, replayable description for the failure report. */
  readonly name: string;
  apply(bytes: Buffer): Buffer;
}

/** Names a mutation in fast-check's counterexample report (instead of printing its closure). */
const named = (m: Mutation): Mutation => Object.assign(m, { [fc.toStringMethod]: () => m.name });

const at = (frac: number, length: number): number => Math.min(length, Math.floor(frac * (length + 1)));
const frac = fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true });

const INVALID_UTF8: readonly number[][] = [
  [0xff], // never valid
  [0xc3], // lead byte without its continuation
  [0xc0, 0xaf], // overlong '/'
  [0xed, 0xa0, 0x80], // UTF-16 surrogate encoded as UTF-8
  [0xf4, 0x90, 0x80, 0x80], // above U+10FFFF
  [0x80], // lone continuation
];

function splice(bytes: Buffer, pos: number, remove: number, insert: Uint8Array): Buffer {
  return Buffer.concat([bytes.subarray(0, pos), insert, bytes.subarray(pos + remove)]);
}

/** Mutations that know nothing of the format. `maxHuge` bounds the huge-line and deep-nesting sizes. */
export function byteMutation(maxHuge = 3_000_000): fc.Arbitrary<Mutation> {
  return fc.oneof(
    frac.map((f) => ({
      name: `truncate at ${f.toFixed(4)}`,
      apply: (b: Buffer) => b.subarray(0, at(f, b.length - 1)),
    })),
    fc.tuple(frac, fc.uint8Array({ minLength: 1, maxLength: 48 })).map(([f, ins]) => ({
      name: `splice ${ins.length} random bytes at ${f.toFixed(4)}`,
      apply: (b: Buffer) => splice(b, at(f, b.length), 0, ins),
    })),
    fc.tuple(frac, fc.constantFrom(...INVALID_UTF8)).map(([f, seq]) => ({
      name: `invalid UTF-8 ${Buffer.from(seq).toString('hex')} at ${f.toFixed(4)}`,
      apply: (b: Buffer) => splice(b, at(f, b.length), 0, Uint8Array.from(seq)),
    })),
    fc.tuple(frac, fc.integer({ min: 100_000, max: maxHuge }), fc.constantFrom('a', ' ', '\\', '"', '<', '0')).map(([f, n, ch]) => ({
      name: `huge line: ${n} × ${JSON.stringify(ch)} at ${f.toFixed(4)}`,
      apply: (b: Buffer) => splice(b, at(f, b.length), 0, Buffer.from(ch.repeat(n))),
    })),
    fc
      .tuple(frac, fc.integer({ min: 200, max: Math.min(maxHuge / 8, 200_000) }), fc.constantFrom('[', '{"a":', '<plan round="1">', '<obs subtask="t1">'), fc.boolean())
      .map(([f, depth, open, closed]) => ({
        name: `nest ${depth} × ${open}${closed ? ' (closed)' : ''} at ${f.toFixed(4)}`,
        apply: (b: Buffer) => {
          const close = open === '[' ? ']' : open.startsWith('{') ? '}' : open.startsWith('<plan') ? '</plan>' : '</obs>';
          const text = open.repeat(depth) + (closed ? `${open === '[' || open.startsWith('{') ? '1' : ''}${close.repeat(depth)}` : '');
          return splice(b, at(f, b.length), 0, Buffer.from(text));
        },
      })),
    fc.tuple(frac, frac).map(([f, g]) => ({
      name: `delete ${f.toFixed(4)}..${Math.max(f, g).toFixed(4)}`,
      apply: (b: Buffer) => {
        const s = at(f, b.length);
        return splice(b, s, at(Math.max(f, g), b.length) - s, new Uint8Array());
      },
    })),
    fc.tuple(frac, frac, fc.integer({ min: 2, max: 20 })).map(([f, g, times]) => ({
      name: `repeat ${f.toFixed(4)}..${Math.max(f, g).toFixed(4)} × ${times}`,
      apply: (b: Buffer) => {
        const s = at(f, b.length);
        const piece = b.subarray(s, Math.min(at(Math.max(f, g), b.length), s + 200_000));
        return splice(b, s, 0, Buffer.concat(Array.from({ length: times - 1 }, () => piece)));
      },
    })),
    fc.uint8Array({ maxLength: 4096 }).map((r) => ({ name: `random file of ${r.length} bytes`, apply: () => Buffer.from(r) })),
  ).map(named);
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Raw JSON texts a value may be replaced with (raw, so `__proto__` keys and huge nesting survive as text). */
const REPLACEMENTS: readonly string[] = [
  'null',
  'true',
  '0',
  '-1',
  '1.5',
  '1e308',
  '-1e308',
  '""',
  '"x"',
  '"2024-13-45T99:99:99Z"',
  '[]',
  '{}',
  '[null]',
  '[[1,2],{"a":[]}]',
  '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}',
  JSON.stringify('<img src=x onerror=alert(1)><script>alert(2)</script>\u001b[31mred\u001b[0m javascript:alert(3)'),
  JSON.stringify('\u0000\u0007\ud800 lone surrogate and NUL'),
  `"${'w'.repeat(300_000)}"`,
  // Deeper than JSON.stringify can go (~8k levels), which JSON.parse accepts.
  `${'['.repeat(20_000)}${']'.repeat(20_000)}`,
  `{"a":${'{"a":'.repeat(12_000)}1${'}'.repeat(12_000)}}`,
  `[${Array.from({ length: 20_000 }, () => '0').join(',')}]`,
];

const REMOVE = '\u0000remove';

interface Located {
  parent: Json[] | Record<string, Json> | null;
  key: string | number | null;
}

/** Every value of a parsed document (first `limit`, depth first), with where it sits. */
function locations(root: Json, limit = 5_000): Located[] {
  const out: Located[] = [{ parent: null, key: null }];
  const stack: Json[] = [root];
  while (stack.length > 0 && out.length < limit) {
    const v = stack.pop() as Json;
    if (Array.isArray(v)) {
      v.forEach((child, i) => {
        out.push({ parent: v, key: i });
        stack.push(child);
      });
    } else if (v !== null && typeof v === 'object') {
      for (const [k, child] of Object.entries(v)) {
        out.push({ parent: v, key: k });
        stack.push(child);
      }
    }
  }
  return out;
}

/** Replaces the value at location `pick` (modulo the count) of a JSON text; null when the text is not JSON. */
function mutateJsonText(text: string, pick: number, replacement: string, indent: number): string | null {
  let root: Json;
  try {
    root = JSON.parse(text) as Json;
  } catch {
    return null;
  }
  const places = locations(root);
  const place = places[pick % places.length] as Located;
  const marker = `\u0000RAW${pick}\u0000`;
  if (place.parent === null) return replacement === REMOVE ? '' : replacement;
  if (Array.isArray(place.parent)) {
    if (replacement === REMOVE) place.parent.splice(place.key as number, 1);
    else place.parent[place.key as number] = marker;
  } else if (replacement === REMOVE) {
    delete place.parent[place.key as string];
  } else {
    Object.defineProperty(place.parent, place.key as string, { value: marker, enumerable: true, writable: true, configurable: true });
  }
  try {
    return JSON.stringify(root, null, indent).replace(JSON.stringify(marker), () => replacement);
  } catch {
    return null; // nested too deep for JSON.stringify (an earlier mutation's deep array): leave it be
  }
}

/** One value of a JSON document, or of one line of a JSON Lines file, replaced or removed. */
export function jsonMutation(): fc.Arbitrary<Mutation> {
  return fc
    .tuple(fc.nat(), fc.nat(), fc.constantFrom(...REPLACEMENTS, REMOVE))
    .map(([linePick, pick, replacement]) => ({
      name: `JSON value #${pick} (line pick ${linePick}) → ${replacement === REMOVE ? 'removed' : replacement.slice(0, 40)}`,
      apply: (b: Buffer) => {
        const text = b.toString('utf8');
        const whole = mutateJsonText(text, pick, replacement, /\n\s+"/.test(text.slice(0, 2000)) ? 2 : 0);
        if (whole !== null) return Buffer.from(whole);
        // JSON Lines: mutate one non-empty line.
        const lines = text.split('\n');
        const candidates = lines.map((l, i) => (l.trim() ? i : -1)).filter((i) => i >= 0);
        if (candidates.length === 0) return b;
        const index = candidates[linePick % candidates.length] as number;
        const mutated = mutateJsonText(lines[index] as string, pick, replacement, 0);
        if (mutated === null) return b;
        lines[index] = mutated;
        return Buffer.from(lines.join('\n'));
      },
    }))
    .map(named);
}

const XML_ATTRIBUTE = /(\s)([\w:-]+)="([^"]*)"/g;

/** Attribute values an Uno transcript may be given; `$SELF` is the enclosing element's own id. */
const XML_VALUES: readonly string[] = ['', '$SELF', 't1', 't1,t1', 't2,t1,t3', '-1', 'NaN', '1e999', '0', 'x'.repeat(100_000), '&lt;script&gt;', '&#0;', '&nope;', '&#xD800;'];

function mutateXml(text: string, kind: number, pick: number, value: number): string {
  switch (kind % 6) {
    case 0: {
      // One attribute's value replaced (self-reference in depends_on makes a one-node cycle).
      const matches = [...text.matchAll(XML_ATTRIBUTE)];
      if (matches.length === 0) return text;
      const m = matches[pick % matches.length] as RegExpMatchArray;
      const tagStart = text.lastIndexOf('<', m.index);
      const id = /\sid="([^"]*)"/.exec(text.slice(tagStart, text.indexOf('>', m.index)))?.[1] ?? 't1';
      const v = (XML_VALUES[value % XML_VALUES.length] as string).replace('$SELF', id);
      return `${text.slice(0, m.index)}${m[1]}${m[2]}="${v}"${text.slice((m.index ?? 0) + m[0].length)}`;
    }
    case 1: {
      // Every subtask of every plan depends on the next one of its plan: a cycle through the whole plan.
      return text.replace(/<plan\b[^>]*>([\s\S]*?)<\/plan>/g, (plan) => {
        const ids = [...plan.matchAll(/<subtask\b[^>]*\sid="([^"]*)"/g)].map((x) => x[1] as string);
        let i = 0;
        return plan.replace(/(<subtask\b[^>]*\sdepends_on=")[^"]*"/g, (_m, head: string) => `${head}${ids[(++i) % ids.length] ?? ''}"`);
      });
    }
    case 2: {
      // One tag removed (unbalanced document).
      const tags = [...text.matchAll(/<\/?[a-z_]+\b[^>]*>/g)];
      if (tags.length === 0) return text;
      const t = tags[pick % tags.length] as RegExpMatchArray;
      return text.slice(0, t.index) + text.slice((t.index ?? 0) + t[0].length);
    }
    case 3: {
      // One element repeated (a second final answer, a duplicated subtask id, a route twice).
      const elements = [...text.matchAll(/<([a-z_]+)\b[^>]*>[\s\S]*?<\/\1>|<[a-z_]+\b[^>]*\/>/g)];
      if (elements.length === 0) return text;
      const e = elements[pick % elements.length] as RegExpMatchArray;
      const end = (e.index ?? 0) + e[0].length;
      return text.slice(0, end) + `\n${e[0]}`.repeat(1 + (value % 3)) + text.slice(end);
    }
    case 4: {
      // An internal-entity bomb ("billion laughs") declared before the root.
      const laughs = ['<!ENTITY a0 "lol">', ...Array.from({ length: 9 }, (_, i) => `<!ENTITY a${i + 1} "${`&a${i};`.repeat(10)}">`)];
      const doctype = `<!DOCTYPE trajectory [${laughs.join('')}]>\n`;
      const root = text.indexOf('<trajectory');
      const body = root === -1 ? text : text.slice(0, root) + doctype + text.slice(root);
      return body.replace(/<obs\b([^>]*)>/, '<obs$1>&a9;');
    }
    default: {
      // Text with markup characters injected into a text node, and an unterminated CDATA / comment.
      const tails = ['<![CDATA[', '<!--', '&', ']]>', '<obs', '\u0000'];
      const pos = Math.floor((pick % 1000) / 1000 * text.length);
      return text.slice(0, pos) + (tails[value % tails.length] as string) + text.slice(pos);
    }
  }
}

/** Mutations of an Uno XML transcript; in a JSON Lines file, of the `transcript` of one line. */
export function xmlMutation(): fc.Arbitrary<Mutation> {
  return fc.tuple(fc.nat(), fc.nat(), fc.nat(), fc.nat()).map(([kind, pick, value, linePick]) => ({
    name: `XML mutation ${kind % 6} (pick ${pick}, value ${value}, line ${linePick})`,
    apply: (b: Buffer) => {
      const text = b.toString('utf8');
      if (text.trimStart().startsWith('{')) {
        const lines = text.split('\n');
        const candidates = lines.map((l, i) => (l.includes('"transcript"') ? i : -1)).filter((i) => i >= 0);
        if (candidates.length === 0) return b;
        const index = candidates[linePick % candidates.length] as number;
        try {
          const row = JSON.parse(lines[index] as string) as { transcript?: unknown };
          if (typeof row.transcript !== 'string') return b;
          row.transcript = mutateXml(row.transcript, kind, pick, value);
          lines[index] = JSON.stringify(row);
        } catch {
          return b;
        }
        return Buffer.from(lines.join('\n'));
      }
      return Buffer.from(mutateXml(text, kind, pick, value));
    },
  })).map(named);
}

/** Central-directory and local-header offsets of every member of a ZIP made by fflate (no zip64, no comment). */
function zipDirectory(zip: Buffer): { name: string; central: number; local: number }[] {
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0) return [];
  const count = zip.readUInt16LE(eocd + 10);
  let p = zip.readUInt32LE(eocd + 16);
  const out: { name: string; central: number; local: number }[] = [];
  for (let i = 0; i < count && p + 46 <= zip.length; i++) {
    const nameLen = zip.readUInt16LE(p + 28);
    const extra = zip.readUInt16LE(p + 30);
    const comment = zip.readUInt16LE(p + 32);
    out.push({ name: zip.subarray(p + 46, p + 46 + nameLen).toString('utf8'), central: p, local: zip.readUInt32LE(p + 42) });
    p += 46 + nameLen + extra + comment;
  }
  return out;
}

/** Sets the declared uncompressed size of a member in both its local header and the central directory. */
export function setDeclaredSize(zip: Buffer, name: string, size: number): Buffer {
  const out = Buffer.from(zip);
  for (const e of zipDirectory(out)) {
    if (e.name !== name) continue;
    out.writeUInt32LE(size >>> 0, e.central + 24);
    out.writeUInt32LE(size >>> 0, e.local + 22);
  }
  return out;
}

/** Mutations of an Inspect `.eval` archive: a member's JSON, zip bombs, many members, or the archive's bytes. */
export function zipMutation(): fc.Arbitrary<Mutation> {
  const members = (b: Buffer): Record<string, Uint8Array> | null => {
    try {
      return unzipSync(b);
    } catch {
      return null;
    }
  };
  const sampleOf = (files: Record<string, Uint8Array>, pick: number): string => {
    const names = Object.keys(files).sort();
    const samples = names.filter((n) => n.startsWith('samples/'));
    const pool = samples.length > 0 && pick % 3 !== 0 ? samples : names;
    return pool[pick % pool.length] as string;
  };
  return fc.oneof(
    { weight: 3, arbitrary: fc.tuple(fc.nat(), fc.oneof(jsonMutation(), byteMutation(1_000_000))).map(([pick, inner]) => ({
      name: `member #${pick}: ${inner.name}`,
      apply: (b: Buffer) => {
        const files = members(b);
        if (!files) return b;
        const name = sampleOf(files, pick);
        files[name] = inner.apply(Buffer.from(files[name] as Uint8Array));
        return Buffer.from(zipSync(files as Zippable, { level: 1 }));
      },
    })) },
    { weight: 2, arbitrary: fc.tuple(fc.nat(), fc.constantFrom(0, 1, 100, 3 * 1024 * 1024 * 1024, 0xffffffff), fc.integer({ min: 1, max: 4 })).map(([pick, declared, mb]) => ({
      // A member of `mb` MB of zeros (deflates ~1000:1) whose header declares `declared` bytes.
      name: `zip bomb: member #${pick} = ${mb} MB of zeros declared as ${declared} bytes`,
      apply: (b: Buffer) => {
        const files = members(b);
        if (!files) return b;
        const name = sampleOf(files, pick);
        files[name] = new Uint8Array(mb * 1024 * 1024).fill(0x20);
        return setDeclaredSize(Buffer.from(zipSync(files as Zippable, { level: 1 })), name, declared);
      },
    })) },
    { weight: 1, arbitrary: fc.integer({ min: 100, max: 1_000 }).map((n) => ({
      name: `${n} extra empty sample members`,
      apply: (b: Buffer) => {
        const files = members(b);
        if (!files) return b;
        for (let i = 0; i < n; i++) files[`samples/${1000 + i}_epoch_1.json`] = new Uint8Array();
        return Buffer.from(zipSync(files as Zippable, { level: 1 }));
      },
    })) },
    { weight: 1, arbitrary: fc.nat().map((pick) => ({
      name: `member #${pick} removed`,
      apply: (b: Buffer) => {
        const files = members(b);
        if (!files) return b;
        delete files[sampleOf(files, pick)];
        return Buffer.from(zipSync(files as Zippable, { level: 1 }));
      },
    })) },
    { weight: 2, arbitrary: byteMutation(1_000_000) },
  ).map(named);
}
