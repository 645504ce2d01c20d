// Redaction on the data exports (issue 37 item 2): `export-data` (JSON Lines and Parquet) and `export … .csv`
// through the CLI, on a database whose episode text holds planted secrets. Without a flag the export is a faithful
// copy (the secrets are there); with --redact-secrets or --redact they are gone and stderr says what went.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../cli/main.ts';
import { openDatabase } from '../db/database.ts';
import { importPaths } from '../importers/pipeline.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';

const tempDir = useSuiteTempDir();

// Invented keys of real shapes, joined at run time so no secret scanner takes this file for a leak.
const SECRETS = {
  openai: ['sk-', 'proj-', 'Qx7Lm2Vb9TzR4kWp1NcY8dHs3JfE6gUa0BiO5qXtZwKe'].join(''),
  github: ['ghp_', 'R2d2C3poX7y8Z9a0B1c2D3e4F5g6H7i8J9k0'].join(''),
  env: 'pg-Pa55w0rd-7Tq',
  user: 'alice.liddell',
  ticket: 'ACME-48213',
};

let dir: string;
let db: string;

beforeAll(async () => {
  dir = tempDir();
  db = join(dir, 'secrets.db');
  const lines = readFileSync('fixtures/canonical/example.jsonl', 'utf8').split('\n').filter(Boolean).slice(0, 3);
  const planted = lines.map((line, i) => {
    const ep = JSON.parse(line) as { run: string; task: { id: string; text: string }; turns: { observation?: string; action: { text?: string } }[] };
    ep.run = i === 0 ? `eval ${SECRETS.ticket}` : 'eval-plain';
    if (i < 2) ep.task.id = `boil ${SECRETS.ticket}`; // one task in both runs: compare pairs it
    ep.task.text += ` (workspace /home/${SECRETS.user}/tasks)`;
    const turn = ep.turns[0]!;
    turn.action.text = `env | grep KEY; cat /Users/${SECRETS.user}/.netrc`;
    turn.observation = `OPENAI_API_KEY=${SECRETS.openai}\nDATABASE_PASSWORD=${SECRETS.env}\nGITHUB=${SECRETS.github}\nticket ${SECRETS.ticket}`;
    return JSON.stringify(ep);
  });
  const file = join(dir, 'planted.jsonl');
  writeFileSync(file, `${planted.join('\n')}\n`);
  const handle = openDatabase(db);
  await importPaths(handle, [file]);
  handle.close();
}, 120_000);

/** `routelens ARGS` in this process: its exit code and stderr. */
async function routelens(...args: string[]): Promise<{ code: number; stderr: string }> {
  const stderr: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string) => (stderr.push(String(chunk)), true)) as typeof process.stderr.write;
  try {
    const code = await main(args);
    return { code, stderr: stderr.join('') };
  } finally {
    process.stderr.write = write;
  }
}

const planted = Object.values(SECRETS);

describe('export-data --format jsonl', () => {
  it('keeps every secret without a flag, and prints no redaction line', async () => {
    const out = join(dir, 'plain.jsonl');
    const r = await routelens('export-data', '--db', db, '--format', 'jsonl', '--out', out);
    expect(r.code, r.stderr).toBe(0);
    const bytes = readFileSync(out, 'utf8');
    for (const secret of planted) expect(bytes).toContain(secret);
    expect(r.stderr).not.toContain('redact');
  });

  it('--redact-secrets and --redact take them out of the bytes and say what went', async () => {
    const out = join(dir, 'redacted.jsonl');
    const r = await routelens('export-data', '--db', db, '--format', 'jsonl', '--out', out, '--redact-secrets', '--redact', 'ACME-[0-9]+');
    expect(r.code, r.stderr).toBe(0);
    const bytes = readFileSync(out, 'utf8');
    for (const secret of planted) expect(bytes).not.toContain(secret);
    expect(bytes).toContain('OPENAI_API_KEY=[redacted: OpenAI key]');
    expect(bytes).toContain('DATABASE_PASSWORD=[redacted: environment secret]');
    expect(bytes).toContain('/home/[user]/tasks');
    expect(bytes).toContain('"run":"eval [redacted: custom pattern]"');
    // The same lines as without the flags, but for the placeholders: keys in the same order.
    const plain = readFileSync(join(dir, 'plain.jsonl'), 'utf8').split('\n');
    bytes.split('\n').forEach((line, i) => expect(Object.keys(JSON.parse(line || '{}') as object)).toEqual(Object.keys(JSON.parse(plain[i] || '{}') as object)));
    // Three episodes, each with the same plants: a key, a token, a password, two home folders, the ticket.
    expect(r.stderr).toMatch(
      /^redacted: 3 OpenAI keys, 3 GitHub tokens, 3 environment secrets, 6 home-folder user names, \d+ custom pattern matches$/m,
    );
  });

  it('--redact alone turns redaction on, with the pattern added', async () => {
    const out = join(dir, 'custom.jsonl');
    const r = await routelens('export-data', '--db', db, '--format', 'jsonl', '--out', out, '--redact', '(?i)acme-\\d+');
    expect(r.code, r.stderr).toBe(0);
    const bytes = readFileSync(out, 'utf8');
    for (const secret of planted) expect(bytes).not.toContain(secret);
    expect(r.stderr).toMatch(/^redacted: 3 OpenAI keys, .*, \d+ custom pattern matches$/m);
  });

  it('an invalid pattern is one line on stderr and exit 1, before anything is written', async () => {
    const out = join(dir, 'never.jsonl');
    const r = await routelens('export-data', '--db', db, '--format', 'jsonl', '--out', out, '--redact', 'key=(');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^routelens export-data: --redact "key=\(": not a valid regular expression \(.+\)\n$/);
    expect(readdirSync(dir)).not.toContain('never.jsonl');
  });
});

describe('export-data --format parquet', () => {
  /** Every text cell of every table, read back through DuckDB. */
  async function textCells(out: string): Promise<string> {
    const duck = await (await DuckDBInstance.create(':memory:')).connect();
    const cells: string[] = [];
    for (const table of readdirSync(out)) {
      const reader = await duck.runAndReadAll(`SELECT * FROM read_parquet('${join(out, table)}/*/*.parquet', hive_partitioning = true)`);
      for (const row of reader.getRowObjects()) for (const v of Object.values(row)) if (typeof v === 'string') cells.push(v);
    }
    duck.closeSync();
    return cells.join('\n');
  }

  it('holds the secrets without the flag and none with it; numbers stay', async () => {
    const plain = join(dir, 'plain-parquet');
    expect((await routelens('export-data', '--db', db, '--format', 'parquet', '--out', plain)).code).toBe(0);
    const before = await textCells(plain);
    for (const secret of planted) expect(before).toContain(secret);

    const out = join(dir, 'redacted-parquet');
    const r = await routelens('export-data', '--db', db, '--format', 'parquet', '--out', out, '--redact-secrets', '--redact', 'ACME-[0-9]+');
    expect(r.code, r.stderr).toBe(0);
    const after = await textCells(out);
    for (const secret of planted) expect(after).not.toContain(secret);
    expect(after).toContain('[redacted: OpenAI key]');
    expect(after).toContain('eval [redacted: custom pattern]'); // the run's name, and so its folder, too
    expect(readdirSync(join(out, 'turns')).join(' ')).not.toContain('ACME');
    // The tables hold no task text: the home folders are the three in the turns' actions.
    expect(r.stderr).toMatch(/^redacted: 3 OpenAI keys, 3 GitHub tokens, 3 environment secrets, 3 home-folder user names, \d+ custom pattern matches$/m);

    const duck = await (await DuckDBInstance.create(':memory:')).connect();
    const sum = async (d: string): Promise<string> =>
      String((await duck.runAndReadAll(`SELECT sum(tokens_in) AS n FROM read_parquet('${join(d, 'turns')}/*/*.parquet')`)).getRowObjects()[0]?.n);
    expect(await sum(out)).toBe(await sum(plain));
    duck.closeSync();
  });
});

describe('export ANALYSIS --out FILE.csv', () => {
  it('redacts the text cells of a figure\'s data; a figure format refuses the flags', async () => {
    const plain = join(dir, 'pareto.csv');
    expect((await routelens('export', 'pareto', '--db', db, '--out', plain)).code).toBe(0);
    expect(readFileSync(plain, 'utf8')).toContain(SECRETS.ticket);

    const out = join(dir, 'pareto-redacted.csv');
    const r = await routelens('export', 'pareto', '--db', db, '--out', out, '--redact', 'ACME-[0-9]+');
    expect(r.code, r.stderr).toBe(0);
    const csv = readFileSync(out, 'utf8');
    expect(csv).not.toContain(SECRETS.ticket);
    expect(csv).toContain('eval [redacted: custom pattern]');
    expect(r.stderr).toMatch(/^redacted: \d+ custom pattern match(es)?$/m);

    const svg = await routelens('export', 'pareto', '--db', db, '--out', join(dir, 'pareto.svg'), '--redact-secrets');
    expect(svg.code).toBe(1);
    expect(svg.stderr).toMatch(/apply to \.csv/);
  });
});

describe('compare --out FILE.csv', () => {
  it('redacts the paired tasks\' text cells with the flags, and refuses them with no CSV to write', async () => {
    const sides = ['--a', `eval ${SECRETS.ticket}`, '--b', 'eval-plain', '--bootstrap', '0'];
    const plain = join(dir, 'tasks.csv');
    const before = await routelens('compare', '--db', db, ...sides, '--out', plain);
    expect(before.code, before.stderr).toBe(0);
    expect(readFileSync(plain, 'utf8')).toContain(`boil ${SECRETS.ticket}`);

    const out = join(dir, 'tasks-redacted.csv');
    const r = await routelens('compare', '--db', db, ...sides, '--out', out, '--redact-secrets', '--redact', 'ACME-[0-9]+');
    expect(r.code, r.stderr).toBe(0);
    const csv = readFileSync(out, 'utf8');
    expect(csv).not.toContain(SECRETS.ticket);
    expect(csv).toContain('boil [redacted: custom pattern]');
    expect(r.stderr).toMatch(/^redacted: \d+ custom pattern match(es)?$/m);

    const none = await routelens('compare', '--db', db, ...sides, '--redact-secrets');
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/^routelens compare: --redact-secrets and --redact apply to --out FILE\.csv/);
  });
});
