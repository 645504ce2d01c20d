// Canonical JSON Lines out and back in: real logs imported, exported with `export-data --format jsonl`, re-imported
// into a fresh database, and every stored fact compared (turns, tokens, costs and where they came from, errors,
// candidates, plans, parents, text, messages, the log's totals), natural keys in place of row ids.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseCanonicalEpisode } from '../../shared/canonical.ts';
import { main } from '../cli/main.ts';
import { openDatabase } from '../db/database.ts';
import type { Db } from '../db/dbHandle.ts';
import { importPaths } from '../importers/pipeline.ts';
import { useTempDir } from '../testing/tmp.ts';
import { exportCanonical } from './canonicalExport.ts';

const fixtures = fileURLToPath(new URL('../../fixtures/', import.meta.url));
const tempDir = useTempDir();

/** Real files of the formats that fill the most fields: a Claude Code session tree (subagent and compaction children,
 * cache writes), MTRouter trajectories (router scores, propensities, priced turns), Uno plans, Inspect grader calls. */
const REAL = [
  'samples/claude-code/spotter',
  'samples/claude-code/vct-claude_code.jsonl',
  'samples/mtrouter/router.traj.json',
  'samples/mtrouter/local.traj.json',
  'samples/uno/uno-transcripts.jsonl',
  'samples/inspect/log_streaming.eval',
  'samples/canonical/messages.jsonl',
  // What explains outcomes: HLE ground truths and judges, SWE-bench test groups, an Inspect multiple-choice scorer.
  'mtrouter/hle',
  'samples/mini-swe-agent',
  'samples/inspect/mmlu-summary-choices.eval',
];

const JSON_COLUMNS = new Set(['detail', 'outcome']);

/** Rows of `sql` with JSON columns parsed (key order is the writer's, not a fact), sorted. */
function rows(db: Db, sql: string): unknown[] {
  const out = (db.prepare(sql).all() as Record<string, unknown>[]).map((r) =>
    Object.fromEntries(Object.entries(r).map(([k, v]) => [k, JSON_COLUMNS.has(k) && typeof v === 'string' ? JSON.parse(v) : v])),
  );
  // Top-level keys sorted by hand: a replacer array would also drop every nested key not named at the top (the JSON columns').
  return out.map((r) => JSON.stringify(Object.fromEntries(Object.entries(r).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))))).sort().map((s) => JSON.parse(s) as unknown);
}

/** The columns of `table` but those that are row ids of this database. */
function columns(db: Db, table: string, alias: string, except: string[]): string {
  const names = (db.prepare(`PRAGMA table_info("${table}")`).all() as { name: string }[]).map((c) => c.name);
  return names.filter((n) => !except.includes(n)).map((n) => `${alias}.${n}`).join(', ');
}

/** Everything an import stores about its episodes, keyed by run, episode id and turn number. */
function facts(db: Db): Record<string, unknown[]> {
  const ep = 'r.name AS run, e.ext_id AS episode';
  const turn = `${ep}, t.t AS t`;
  const fromTurn = 'JOIN turns t ON t.id = x.turn_id JOIN episodes e ON e.id = t.episode_id JOIN runs r ON r.id = e.run_id';
  const fromEp = 'JOIN episodes e ON e.id = x.episode_id JOIN runs r ON r.id = e.run_id';
  const hasLogTotals = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'episode_log_totals'").get() !== undefined;
  const hasProvenance = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'price_provenance'").get() !== undefined;
  return {
    runs: rows(db, 'SELECT name, policy_name, policy_kind FROM runs'),
    episodes: rows(db, `SELECT ${ep}, ${columns(db, 'episodes', 'e', ['id', 'run_id', 'ext_id', 'source_id'])} FROM episodes e JOIN runs r ON r.id = e.run_id`),
    episode_text: rows(db, `SELECT ${ep}, ${columns(db, 'episode_text', 'x', ['episode_id'])} FROM episode_text x ${fromEp}`),
    turns: rows(db, `SELECT ${turn}, m.name AS model, pm.name AS prev_model, gm.name AS greedy_model,
        ${columns(db, 'turns', 't', ['id', 'episode_id', 't', 'model_id', 'prev_model_id', 'greedy_model_id', 'price_provenance_id'])}
        ${hasProvenance ? ', p.price_table, p.version, p.cache_tier' : ''}
      FROM turns t JOIN episodes e ON e.id = t.episode_id JOIN runs r ON r.id = e.run_id JOIN models m ON m.id = t.model_id
        LEFT JOIN models pm ON pm.id = t.prev_model_id LEFT JOIN models gm ON gm.id = t.greedy_model_id
        ${hasProvenance ? 'LEFT JOIN price_provenance p ON p.id = t.price_provenance_id' : ''}`),
    turn_text: rows(db, `SELECT ${turn}, x.action, x.observation, x.detail FROM turn_text x ${fromTurn}`),
    turn_errors: rows(db, `SELECT ${turn}, y.name, x.severity, x.source FROM turn_errors x JOIN error_types y ON y.id = x.error_type_id ${fromTurn}`),
    turn_candidates: rows(db, `SELECT ${turn}, m.name, x.logged_score FROM turn_candidates x JOIN models m ON m.id = x.model_id ${fromTurn}`),
    targets: rows(db, `SELECT ${turn}, x.s_tilde, x.penalty FROM targets x ${fromTurn}`),
    plan_nodes: rows(db, `SELECT ${ep}, tt.t, x.round, x.subtask_id, m.name, x.primitive, x.status, x.obs_chars FROM plan_nodes x ${fromEp}
      LEFT JOIN turns tt ON tt.id = x.turn_id LEFT JOIN models m ON m.id = x.model_id`),
    plan_edges: rows(db, `SELECT ${ep}, x.round, x.src, x.dst FROM plan_edges x ${fromEp}`),
    episode_models: rows(db, `SELECT ${ep}, m.name, ${columns(db, 'episode_models', 'x', ['episode_id', 'model_id'])} FROM episode_models x ${fromEp}
      JOIN models m ON m.id = x.model_id`),
    grader_calls: rows(db, `SELECT ${ep}, m.name, ${columns(db, 'grader_calls', 'x', ['id', 'episode_id', 'model_id'])} FROM grader_calls x ${fromEp}
      JOIN models m ON m.id = x.model_id`),
    messages: rows(db, `SELECT ${ep}, x.t, x.seq, x.role, x.text, x.timestamp FROM messages x ${fromEp}`),
    ...(hasLogTotals ? { episode_log_totals: rows(db, `SELECT ${ep}, ${columns(db, 'episode_log_totals', 'x', ['episode_id'])} FROM episode_log_totals x ${fromEp}`) } : {}),
  };
}

async function imported(path: string, inputs: string[]): Promise<Db> {
  const db = openDatabase(path);
  const report = await importPaths(db, inputs);
  for (const f of report.files) expect(f.status, `${f.path}: ${f.reason ?? ''}`).toBe('imported');
  return db;
}

describe('canonical JSON Lines export', () => {
  it('re-imports real Claude Code, MTRouter, Uno, Inspect and SWE-bench logs to the same episodes, turns, costs, parents, messages and outcomes', async () => {
    const dir = tempDir();
    const first = await imported(join(dir, 'first.db'), REAL.map((f) => join(fixtures, f)));
    const out = join(dir, 'all.jsonl');
    const report = await exportCanonical(first, out);
    const before = facts(first);
    expect(report.episodes).toBe(first.prepare('SELECT COUNT(*) FROM episodes').pluck().get());
    expect(report.turns).toBe(first.prepare('SELECT COUNT(*) FROM turns').pluck().get());
    first.close();

    // Every line is a valid routelens/v1 episode, and what the samples hold is there to compare.
    const lines = readFileSync(out, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(report.episodes);
    for (const line of lines) expect(parseCanonicalEpisode(JSON.parse(line) as unknown).success).toBe(true);
    expect(before.messages!.length).toBeGreaterThanOrEqual(11);
    expect(before.episodes!.filter((e) => (e as { parent_ext_id: unknown }).parent_ext_id !== null).length).toBeGreaterThan(0);
    expect(before.turn_candidates!.length).toBeGreaterThan(0);
    expect(before.plan_nodes!.length).toBeGreaterThan(0);
    expect((before.turns as { cost_source: string }[]).map((t) => t.cost_source)).toEqual(expect.arrayContaining(['logged', 'priced']));
    const outcomes = (before.episode_text as { outcome: Record<string, unknown> }[]).map((x) => x.outcome);
    for (const key of ['target', 'choices', 'answer', 'scorers', 'tests', 'notes']) expect(outcomes.some((o) => key in o), key).toBe(true);

    const second = await imported(join(dir, 'second.db'), [out]);
    const after = facts(second);
    second.close();
    for (const table of Object.keys(before)) expect(after[table], table).toEqual(before[table]);
  });

  it('writes a database without episodes as an empty file, and refuses a folder or a missing folder', async () => {
    const dir = tempDir();
    const db = openDatabase(join(dir, 'empty.db'));
    const out = join(dir, 'empty.jsonl');
    expect(await exportCanonical(db, out)).toMatchObject({ episodes: 0, turns: 0, messages: 0 });
    expect(readFileSync(out, 'utf8')).toBe('');
    mkdirSync(join(dir, 'folder'));
    await expect(exportCanonical(db, join(dir, 'folder'))).rejects.toThrow(/is a folder/);
    await expect(exportCanonical(db, join(dir, 'no', 'such', 'x.jsonl'))).rejects.toThrow(/no such folder/);
    db.close();
  });

  it('routelens export-data --format jsonl: one line per episode; a bad path or format is one line on stderr and exit 1', async () => {
    const dir = tempDir();
    const dbPath = join(dir, 'cli.db');
    (await imported(dbPath, [join(fixtures, 'samples/canonical/messages.jsonl')])).close();
    const out = join(dir, 'out.jsonl');
    const stderr: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string) => (stderr.push(String(chunk)), true)) as typeof process.stderr.write;
    try {
      expect(await main(['export-data', '--db', dbPath, '--format', 'jsonl', '--out', out])).toBe(0);
      expect(await main(['export-data', '--db', dbPath, '--format', 'jsonl', '--out', join(dir, 'missing', 'x.jsonl')])).toBe(1);
      expect(await main(['export-data', '--db', dbPath, '--format', 'csv', '--out', out])).toBe(1);
      expect(await main(['export-data', '--db', join(dir, 'nope.db'), '--format', 'jsonl', '--out', out])).toBe(1);
    } finally {
      process.stderr.write = write;
    }
    const errors = stderr.join('').split('\n').filter((l) => l.startsWith('routelens export-data: '));
    expect(errors).toHaveLength(3);
    expect(errors.join('\n')).not.toMatch(/\bat .+:\d+:\d+/);
    const [line] = readFileSync(out, 'utf8').trimEnd().split('\n');
    const ep = JSON.parse(line as string) as { turns: { inputs?: unknown[] }[]; final_messages?: unknown[] };
    expect(ep.turns.map((t) => t.inputs?.length ?? 0)).toEqual([0, 2, 4, 2, 0]);
    expect(ep.final_messages).toHaveLength(3);
    expect(existsSync(`${out}.partial`)).toBe(false);
  });
});

