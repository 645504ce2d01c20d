// Log text never drives the terminal (issue 16 item 7). A canonical log whose run, model, category and episode
// names carry terminal commands (window title, clear screen, hyperlink, C1 CSI, bell, bidi override, zero-width
// space, …), in a file whose own name carries some, goes through the real CLI as a child process: `import`
// (its report and the "not in models/pool.json" warning quote the names), `info`, `analyze` tables and three
// CSV exports. No output or file may hold a byte that acts on a terminal; each name shows as its escapes;
// `--json` still parses to the exact names.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { visibleText } from '../shared/displayText.ts';
import { useSuiteTempDir } from './testing/tmp.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'routelens.mjs');
const example = join(root, 'fixtures', 'canonical', 'example.jsonl');
const tempDir = useSuiteTempDir();

const HOSTILE = [
  '\u001b]0;pwned-title\u0007', // OSC 0: sets the window title
  '\u001b[2J\u001b[H', // CSI: clears the screen
  '\u001b]8;;https://evil.example/\u001b\\click-me\u001b]8;;\u001b\\', // OSC 8 hyperlink
  '\u009b31m', // C1 CSI: red text
  '\u009d0;c1-title\u009c', // C1 OSC … ST
  '\u202eevil', // right-to-left override
  '\u200b', // zero-width space: gpt\u200b-5 looks like gpt-5
  '\u0007', // bell
  'over\rwrite', // carriage return redraws the line
  'two\nlines',
  '\u007f\u0008', // DEL, backspace
  '\u2066iso\u2069', // bidi isolate
  '\ufeff\u2060', // BOM, word joiner
  '\u{e0041}\u{e0042}', // tag characters
] as const;

/** Code points that act on a terminal or hide (LF and, in CSV, CRLF line ends excepted). */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const ACTING = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u00ad\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\u{e0000}-\u{e007f}]/u;

function routelens(...args: string[]) {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: root, timeout: 60_000, env: { ...process.env, NO_COLOR: '1' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Every way the output could act: raw ESC / BEL / C1 bytes, or any acting code point once decoded. */
function actingIn(bytes: Buffer, lineEnds = /\n/g): string[] {
  const found: string[] = [];
  for (const b of [0x1b, 0x07]) if (bytes.includes(b)) found.push(`byte 0x${b.toString(16)}`);
  const text = bytes.toString('utf8').replace(lineEnds, '');
  const m = text.match(new RegExp(ACTING.source, 'gu'));
  if (m) found.push(...new Set(m.map((c) => `U+${c.codePointAt(0)!.toString(16).padStart(4, '0')}`)));
  return found;
}

const modelOf = (i: number, base: string): string => `${base}${HOSTILE[i % HOSTILE.length]}`;

describe('hostile names through the CLI', () => {
  const dir = tempDir();
  const db = join(dir, 'hostile.db');
  const models = new Map<string, string>();
  const runs = new Set<string>();
  // The file's own name carries a title command and a bell: `import` prints it.
  const log = join(dir, 'log\u001b]0;file-title\u0007\u202e.jsonl');
  const outputs: { what: string; bytes: Buffer; lineEnds?: RegExp }[] = [];

  it('imports the log; its report and warnings show the names escaped', () => {
    let n = 0;
    const lines = readFileSync(example, 'utf8').trim().split('\n').map((line, i) => {
      const ep = JSON.parse(line);
      ep.run = `${ep.run}${HOSTILE[i % HOSTILE.length]}`;
      runs.add(ep.run);
      ep.episode_id = `${ep.episode_id}${HOSTILE[(i + 3) % HOSTILE.length]}`;
      ep.task.category = `${ep.task.category}${HOSTILE[(i + 5) % HOSTILE.length]}`;
      const rename = (m: string): string => {
        if (!models.has(m)) models.set(m, modelOf(n++, m));
        return models.get(m)!;
      };
      for (const t of ep.turns) {
        t.model = rename(t.model);
        if (t.candidates) t.candidates = Object.fromEntries(Object.entries(t.candidates).map(([k, v]) => [rename(k), v]));
      }
      return JSON.stringify(ep);
    });
    writeFileSync(log, lines.join('\n') + '\n');
    const r = routelens('import', log, '--db', db);
    expect(r.code, r.stderr.toString()).toBe(0);
    outputs.push({ what: 'import', bytes: Buffer.concat([r.stdout, r.stderr]) });
    const stderr = r.stderr.toString('utf8');
    expect(stderr).toContain(`imported  ${visibleText(log)}`);
    expect(stderr).toContain('\\u001b]0;file-title\\u0007\\u202e.jsonl');
    expect(stderr).toMatch(/models are not in models\/pool\.json/);
    expect(stderr).toContain('\\u001b]0;pwned-title\\u0007'); // a model name, in the warning
  });

  it('info prints every run and model, escaped; --json gives the exact names', () => {
    const text = routelens('info', '--db', db);
    expect(text.code, text.stderr.toString()).toBe(0);
    outputs.push({ what: 'info', bytes: Buffer.concat([text.stdout, text.stderr]) });
    const stdout = text.stdout.toString('utf8');
    for (const run of runs) expect(stdout).toContain(visibleText(run));
    for (const model of models.values()) expect(stdout).toContain(visibleText(model));
    expect(stdout).toContain('\\u001b[2J\\u001b[H');
    expect(stdout).toContain('\\u009b31m');
    expect(stdout).toContain('two\\nlines'); // a line feed in a name does not start a line

    const json = routelens('info', '--db', db, '--json');
    expect(json.code).toBe(0);
    outputs.push({ what: 'info --json', bytes: json.stdout });
    const parsed = JSON.parse(json.stdout.toString('utf8')) as { runs: { name: string; models: string[] }[] };
    expect(new Set(parsed.runs.map((x) => x.name))).toEqual(runs);
    expect(new Set(parsed.runs.flatMap((x) => x.models))).toEqual(new Set(models.values()));
  });

  it('analyze tables print the names escaped', () => {
    for (const analysis of ['lift', 'usage-by-turn']) {
      const r = routelens('analyze', analysis, '--db', db, '--min-n', '1');
      expect(r.code, `${analysis}: ${r.stderr.toString()}`).toBe(0);
      outputs.push({ what: `analyze ${analysis}`, bytes: Buffer.concat([r.stdout, r.stderr]) });
    }
  });

  it('CSV exports carry escapes, not control bytes, and stay valid CSV', () => {
    for (const analysis of ['lift', 'pareto', 'usage-by-turn']) {
      const out = join(dir, `${analysis}.csv`);
      const r = routelens('export', analysis, '--db', db, '--out', out, ...(analysis === 'lift' ? ['--min-n', '1'] : []));
      expect(r.code, `${analysis}: ${r.stderr.toString()}`).toBe(0);
      outputs.push({ what: `export ${analysis} (stderr)`, bytes: r.stderr });
      const csv = readFileSync(out);
      outputs.push({ what: `${analysis}.csv`, bytes: csv, lineEnds: /\r\n/g });
      const text = csv.toString('utf8');
      expect(text.endsWith('\r\n')).toBe(true);
      // RFC 4180: every record has the header's number of fields (quoted commas do not count).
      const fields = text.trimEnd().split('\r\n').map((row) => row.replace(/"(?:[^"]|"")*"/g, 'q').split(',').length);
      expect(new Set(fields).size).toBe(1);
      expect(fields.length).toBeGreaterThan(1);
      expect(text, analysis).toMatch(/\\u202e|\\u200b|\\u001b|\\u009b/); // the names are there, escaped
    }
  });

  it('no output or file holds a byte that acts on a terminal', () => {
    const bad = outputs.map((o) => ({ what: o.what, found: actingIn(o.bytes, o.lineEnds) })).filter((o) => o.found.length > 0);
    expect(bad).toEqual([]);
    const csvs = outputs.filter((o) => o.what.endsWith('.csv')).length;
    const bytes = outputs.reduce((a, o) => a + o.bytes.length, 0);
    console.log(
      `attack: ${HOSTILE.length} hostile name payloads in ${runs.size} runs and ${models.size} models through import, info, info --json, ` +
        `2 analyze tables and ${csvs} CSV exports: ${outputs.length} outputs, ${bytes.toLocaleString('en-US')} bytes, ${bad.length} with a control byte`,
    );
  });
});
