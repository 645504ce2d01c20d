// Log text never drives the terminal (issue 16 item 7). A canonical log whose run, model, category and episode
// names carry terminal commands (window title, clear screen, hyperlink, C1 CSI, bell, bidi override, zero-width
// space, …), in a file whose own name carries some, goes through the real CLI as a child process: `import`
// (its report and the "not in models/pool.json" warning quote the names), `info`, `analyze` tables and three
// CSV exports. No output or file may hold a byte that acts on a terminal; each name shows as its escapes;
// `--json` still parses to the exact names.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { UsageByTurnResult, UsageRatioResult } from '../../shared/analysisResults.ts';
import { visibleText } from '../../shared/displayText.ts';
import { contractClient } from '../../renderer/api/contractClient.ts';
import { httpTransport } from '../../renderer/api/httpApi.ts';
import { postApi } from '../testing/serveChild.ts';
import { startServer } from '../server/serve.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
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

// Issue 38 item 4: names that are JavaScript words. Log text became keys of plain objects: a split named
// `constructor`, `toString` or `__proto__` found Object.prototype's members (exit 2 with a stack trace, HTTP 500),
// a model named `__proto__` set a prototype instead of a share (usage-by-turn's shares summed to 0.875), and a
// model named `constructor` that a turn did not use read as a function in the figure (NaN geometry).
describe('names that are JavaScript words', () => {
  const WORDS = ['constructor', 'toString', '__proto__'] as const;
  const dir = tempDir();
  const db = join(dir, 'words.db');
  let episodes = 0;

  it('imports a log whose splits and models are those words', () => {
    const lines = readFileSync(example, 'utf8').trim().split('\n').map((line, i) => {
      const ep = JSON.parse(line);
      ep.task.split = WORDS[i % WORDS.length];
      for (const t of ep.turns) if (t.t % 4 !== 0) t.model = WORDS[t.t % 4 - 1];
      return JSON.stringify(ep);
    });
    episodes = lines.length;
    const log = join(dir, 'words.jsonl');
    writeFileSync(log, lines.join('\n') + '\n');
    const r = routelens('import', log, '--db', db);
    expect(r.code, r.stderr.toString()).toBe(0);
  });

  it('--split with each word: exit 0 and its episodes, never a stack trace', () => {
    let seen = 0;
    for (const split of WORDS) {
      const r = routelens('analyze', 'usage-by-turn', '--db', db, '--split', split, '--json');
      expect(r.code, `--split ${split}: ${r.stderr.toString()}`).toBe(0);
      const result = JSON.parse(r.stdout.toString('utf8')) as { runs: { turns: { t: number; n: number }[] }[] };
      seen += result.runs.reduce((a, run) => a + (run.turns.find((t) => t.t === 0)?.n ?? 0), 0);
    }
    const lift = routelens('analyze', 'lift', '--db', db, '--split', 'constructor,__proto__', '--min-n', '1');
    expect(lift.code, lift.stderr.toString()).toBe(0);
    expect(lift.stderr.toString()).not.toMatch(/internal error|\n\s+at /);
    expect(seen).toBe(episodes);
  }, 180_000);

  it('usage-by-turn: every model is a share, shares sum to 1 at every turn, the figure has no NaN', () => {
    const r = routelens('analyze', 'usage-by-turn', '--db', db, '--json');
    expect(r.code, r.stderr.toString()).toBe(0);
    const result = JSON.parse(r.stdout.toString('utf8')) as { runs: { run: string; turns: { t: number; shares: Record<string, number> }[] }[] };
    const models = new Set<string>();
    for (const run of result.runs) {
      for (const t of run.turns) {
        Object.keys(t.shares).forEach((m) => models.add(m));
        expect(Object.values(t.shares).reduce((a, b) => a + b, 0), `${run.run} t=${t.t}`).toBeCloseTo(1, 9);
      }
    }
    for (const word of WORDS) expect(models).toContain(word);
    const svg = join(dir, 'usage.svg');
    const exported = routelens('export', 'usage-by-turn', '--db', db, '--out', svg);
    expect(exported.code, exported.stderr.toString()).toBe(0);
    expect(readFileSync(svg, 'utf8')).not.toContain('NaN');
  }, 120_000);

  it('the API answers each word as a split with 200, and the shares sum to 1', async () => {
    const staticDir = join(dir, 'static');
    mkdirSync(staticDir, { recursive: true });
    writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>RouteLens</title>');
    const server = await startServer({ dbPath: db, staticDir });
    try {
      const port = Number(new URL(server.url).port);
      for (const split of WORDS) {
        const r = await postApi(port, server.token, 'runAnalysis', { id: 'usage-by-turn', split });
        expect(r.status, `${split}: ${r.text}`).toBe(200);
        const runs = (JSON.parse(r.text) as { value: { result: { runs: { turns: { shares: Record<string, number> }[] }[] } } }).value.result.runs;
        expect(runs.length).toBeGreaterThan(0);
        for (const t of runs.flatMap((run) => run.turns)) expect(Object.values(t.shares).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
      }
    } finally {
      await server.close();
    }
  });
});

describe('names that are JavaScript words, as the window and ρ see them', () => {
  const WORDS = ['constructor', 'toString', '__proto__'] as const;
  const dir = tempDir();
  const db = join(dir, 'words.db');

  it('imports a log whose models and candidates are those words', () => {
    const lines = readFileSync(example, 'utf8').trim().split('\n').map((line) => {
      const ep = JSON.parse(line);
      for (const t of ep.turns) {
        if (t.t % 4 !== 0) t.model = WORDS[t.t % 4 - 1];
        // Router scores keyed by the words: entries define own keys, so `__proto__` is a key like any other.
        if (t.candidates) t.candidates = Object.fromEntries(Object.entries(t.candidates).map(([m, s], j) => [WORDS[j] ?? m, s]));
      }
      return JSON.stringify(ep);
    });
    const log = join(dir, 'words.jsonl');
    writeFileSync(log, lines.join('\n') + '\n');
    const r = routelens('import', log, '--db', db);
    expect(r.code, r.stderr.toString()).toBe(0);
  });

  // zod's record schema leaves out a `__proto__` key: the window, which checks every answer with the contract's
  // schemas, lost that model's share and candidate score although the server had sent them.
  it('the window (HTTP adapter, contract-checked) gets every word as a share and as a candidate', async () => {
    const staticDir = join(dir, 'static');
    mkdirSync(staticDir, { recursive: true });
    writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>RouteLens</title>');
    const server = await startServer({ dbPath: db, staticDir });
    try {
      const withToken: typeof fetch = (url, init) =>
        fetch(url, { ...init, headers: { ...(init?.headers as Record<string, string>), 'X-RouteLens-Token': server.token } });
      const api = contractClient(httpTransport(withToken, new URL('/api/', server.url).href));
      const answer = await api.runAnalysis({ id: 'usage-by-turn' });
      const shares = (answer.result as UsageByTurnResult).runs.flatMap((run) => run.turns.map((t) => t.shares));
      expect(shares.length).toBeGreaterThan(0);
      for (const s of shares) expect(Object.values(s).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
      for (const word of WORDS) expect(shares.some((s) => Object.hasOwn(s, word)), word).toBe(true);
      const turn = (await api.getEpisode({ ext_id: 'boil_0_run1' })).turns[0];
      expect(Object.keys(turn?.candidates ?? {})).toEqual(expect.arrayContaining([...WORDS]));
      expect(Object.values(turn?.candidates ?? {}).every((x) => typeof x === 'number')).toBe(true);
    } finally {
      await server.close();
    }
  });

  const rho = '__proto__=0.5,constructor=0.25';

  it('analyze --rho gives each word its target; a word without one has none', () => {
    const r = routelens('analyze', 'usage-ratio', '--db', db, '--rho', rho, '--json');
    expect(r.code, r.stderr.toString()).toBe(0);
    const usage = (JSON.parse(r.stdout.toString('utf8')) as UsageRatioResult).runs.flatMap((run) => run.usage);
    const rhoOf = (model: string) => new Set(usage.filter((u) => u.model === model).map((u) => u.rho));
    expect(rhoOf('__proto__')).toEqual(new Set([0.5]));
    expect(rhoOf('constructor')).toEqual(new Set([0.25]));
    expect(rhoOf('toString')).toEqual(new Set([null]));
  });

  it('export --rho gives each word its target', () => {
    const out = join(dir, 'usage-ratio.csv');
    const exported = routelens('export', 'usage-ratio', '--db', db, '--rho', rho, '--out', out);
    expect(exported.code, exported.stderr.toString()).toBe(0);
    const rows = readFileSync(out, 'utf8').trim().split('\r\n').map((row) => row.split(','));
    const header = rows[0] as string[];
    const targets = new Set(rows.filter((row) => row[header.indexOf('model')] === '__proto__').map((row) => row[header.indexOf('rho')]));
    expect(targets).toEqual(new Set(['0.5']));
  });
});
