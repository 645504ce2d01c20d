/**
 * `routelens … --store URL` end to end against a real 2-shard cluster: init, import, info and analyze print what
 * the same commands print with `--db`; mistakes and an unreachable or refusing store are one line, exit 1, and
 * never show the password.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../testing/cliChild.ts';
import { clickhouseSkipReason, startTestCluster, type TestCluster } from '../../test/clickhouseCluster.ts';
import { expectClose } from '../../test/expectClose.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';
import { ClickHouseStore } from '../store/clickhouse/schema/connection.ts';
import { STORE_SCHEMA_VERSION } from '../store/clickhouse/schema/schema.ts';
import { parseStoreUrl } from '../store/storeUrl.ts';

const tempDir = useSuiteTempDir();
const skip = clickhouseSkipReason();

function routelens(args: string[], env: NodeJS.ProcessEnv = {}) {
  return runCli(args, { timeoutMs: 120_000, env: { ...process.env, ROUTELENS_STORE: '', ...env } });
}

describe('store URLs that are wrong', () => {
  it('a malformed URL, both --db and --store, or no store at all: one line, exit 1', () => {
    for (const [args, message] of [
      [['info', '--store', 'mysql://x/y'], 'a store URL looks like clickhouse://HOST:PORT/DB'],
      [['info', '--store', 'clickhouse://h:1/db', '--db', 'x.db'], 'give --db FILE or --store URL, not both'],
      [['info', '--store', 'clickhouse://a:1,b:2/db'], 'several hosts need ?cluster=NAME'],
      [['store', 'init'], '--store URL is required'],
      [['analyze', 'nope', '--store', 'clickhouse://127.0.0.1:1/db'], 'unknown analysis "nope" (available: pareto,'],
      [['whatif', '--store', 'clickhouse://127.0.0.1:1/db', '--episode', 'x', '--turn', '0'], 'routelens whatif: does not read a ClickHouse store yet'],
    ] as const) {
      const r = routelens([...args]);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain(message);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it('a thread count that is not one: one line, exit 1, before anything is read or sent', () => {
    const r = routelens(['import', 'fixtures/canonical/example.jsonl', '--store', 'clickhouse://127.0.0.1:1/db'], { ROUTELENS_IMPORT_THREADS: 'two' });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr.trim()).toBe('routelens import: ROUTELENS_IMPORT_THREADS is "two": give a whole number of threads, 1 to 64');
  });

  it('store ddl prints what init runs, where, without connecting', () => {
    const r = routelens(['store', 'ddl', '--store', 'clickhouse://nowhere.invalid:1,other.invalid:2/rl?cluster=prod']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('-- on every host\nCREATE TABLE IF NOT EXISTS rl.turns_local (');
    expect(r.stdout).toContain('ENGINE = Distributed(prod, rl, turns_local, root_key);');
    expect(r.stdout).toContain(`-- on first host\nINSERT INTO rl.schema_version VALUES (${STORE_SCHEMA_VERSION}, now());`);
  });

  it('a store that does not answer is named without its password', () => {
    const r = routelens(['info', '--store', 'clickhouse://alice:s3cret@127.0.0.1:1/routelens']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('clickhouse://127.0.0.1:1/routelens: connection refused');
    expect(r.stderr).not.toContain('s3cret');
    expect(r.stderr).not.toContain('alice');
  });
});

describe.skipIf(skip !== null)('routelens with --store on a 2-shard cluster', () => {
  let cluster: TestCluster;
  let url: string;
  const dir = tempDir();
  const files = ['fixtures/canonical/example.jsonl', 'fixtures/samples/claude-code', 'fixtures/samples/mtrouter', 'fixtures/samples/uno'];

  beforeAll(async () => {
    cluster = await startTestCluster(2);
    url = cluster.url('cli');
  }, 120_000);
  afterAll(async () => cluster?.stop());

  it('init, import, info and analyze answer as --db does', async () => {
    const notYet = routelens(['info', '--store', url]);
    expect(notYet.code).toBe(1);
    expect(notYet.stderr).toContain('not a RouteLens store yet (run `routelens store init --store URL`)');
    const init = routelens(['store', 'init', '--store', url]);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stderr).toContain('created');
    expect(routelens(['store', 'init', '--store', url]).stderr).toContain('up to date');

    const db = join(dir, 'same.db');
    const a = routelens(['import', ...files, '--store', url, '--json']);
    const b = routelens(['import', ...files, '--db', db, '--json']);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    expect(JSON.parse(a.stdout).files.map((f: { episodes: number }) => f.episodes)).toEqual(JSON.parse(b.stdout).files.map((f: { episodes: number }) => f.episodes));

    // The environment names the store as well as the flag.
    const info = routelens(['info', '--json'], { ROUTELENS_STORE: url });
    expect(info.code, info.stderr).toBe(0);
    expectClose(JSON.parse(info.stdout), JSON.parse(routelens(['info', '--db', db, '--json']).stdout));

    for (const analysis of ['pareto', 'switch-cost', 'error-recovery', 'usage-by-turn', 'budget-modes', 'usage-ratio', 'confusion']) {
      const onStore = routelens(['analyze', analysis, '--store', url, '--json']);
      expect(onStore.code, onStore.stderr).toBe(0);
      expectClose(JSON.parse(onStore.stdout), JSON.parse(routelens(['analyze', analysis, '--db', db, '--json']).stdout));
      // The text form is printed by the same printer for both stores (the nested tables' JSON keeps each store's order).
      if (['pareto', 'switch-cost', 'error-recovery', 'usage-by-turn'].includes(analysis)) {
        expect(routelens(['analyze', analysis, '--store', url]).stdout).toBe(routelens(['analyze', analysis, '--db', db]).stdout);
      }
    }
    const lift = routelens(['analyze', 'lift', '--min-n', '5', '--store', url, '--json']);
    expect(lift.code, lift.stderr).toBe(0);
    const sqliteLift = JSON.parse(routelens(['analyze', 'lift', '--min-n', '5', '--db', db, '--json']).stdout) as { cells: { model: string; category: string; lift: number }[] };
    const storeLift = JSON.parse(lift.stdout) as typeof sqliteLift;
    expect(storeLift.cells.length).toBe(sqliteLift.cells.length);
    for (const c of sqliteLift.cells) expectClose(storeLift.cells.find((x) => x.model === c.model && x.category === c.category)?.lift, c.lift);
    for (const args of [['targets', '--episode', 'boil_0_run1'], ['targets', '--episode', 'boil_0_run1', '--json'], ['plan-dag', '--json']]) {
      const onStore = routelens(['analyze', ...args, '--store', url]);
      expect(onStore.code, onStore.stderr).toBe(0);
      expectClose(JSON.parse(args.includes('--json') ? onStore.stdout : '0'), JSON.parse(args.includes('--json') ? routelens(['analyze', ...args, '--db', db]).stdout : '0'));
      if (!args.includes('--json')) expect(onStore.stdout).toBe(routelens(['analyze', ...args, '--db', db]).stdout);
    }
    const uno = routelens(['analyze', 'plan-dag', '--episode', 'case3-mmlu-garch-oneshot', '--store', url, '--json']);
    expect(uno.code, uno.stderr).toBe(0);
    expect(JSON.parse(uno.stdout)).toEqual(JSON.parse(routelens(['analyze', 'plan-dag', '--episode', 'case3-mmlu-garch-oneshot', '--db', db, '--json']).stdout));
    // Figure files: the same request on either store writes the same bytes (CSV and SVG carry the same numbers).
    for (const [analysis, ext] of [['pareto', 'csv'], ['error-recovery', 'svg'], ['lift', 'csv']] as const) {
      const a = join(dir, `store-${analysis}.${ext}`);
      const b = join(dir, `db-${analysis}.${ext}`);
      const onStore = routelens(['export', analysis, '--store', url, '--out', a]);
      expect(onStore.code, onStore.stderr).toBe(0);
      expect(routelens(['export', analysis, '--db', db, '--out', b]).code).toBe(0);
      // lift's interval columns come from a Poisson bootstrap on the store (docs/scale-out.md): its cells only.
      const read = (f: string) => (analysis === 'lift' ? readFileSync(f, 'utf8').split('\n').map((l) => l.split(',').slice(0, 4).join(',')).join('\n') : readFileSync(f, 'utf8'));
      expect(read(a)).toBe(read(b));
    }
    // Replay streams the store's sessions; its JSON is the SQLite one but for the runs' ids.
    const replayArgs = ['replay', '--policy', 'logged', '--policy', 'cheapest', '--bootstrap', '200', '--json'];
    const replayed = routelens([...replayArgs, '--store', url]);
    expect(replayed.code, replayed.stderr).toBe(0);
    const withoutIds = (text: string) => ({ ...JSON.parse(text), runs: (JSON.parse(text) as { runs: { name: string }[] }).runs.map((r) => r.name) });
    expectClose(withoutIds(replayed.stdout), withoutIds(routelens([...replayArgs, '--db', db]).stdout), '$', 1e-6);
    // Compare reads each run's episodes from the store; the same code pairs and tests them.
    const compareArgs = ['compare', '--a', 'sw-router-demo', '--b', 'hle-router-demo', '--bootstrap', '300', '--json'];
    const compared = routelens([...compareArgs, '--store', url]);
    expect(compared.code, compared.stderr).toBe(0);
    const noIds = (text: string) => {
      const r = JSON.parse(text) as { tasks: { a_episode: unknown; b_episode: unknown }[] };
      return { ...r, tasks: r.tasks.map((t) => ({ ...t, a_episode: null, b_episode: null })) };
    };
    expectClose(noIds(compared.stdout), noIds(routelens([...compareArgs, '--db', db]).stdout), '$', 1e-6);
    // Training streams the store's episodes in parts; the estimator it writes serves a database's replay.
    const onnx = join(dir, 'from-store.onnx');
    const trained = routelens(['train', '--store', url, '--out', onnx, '--epochs', '2', '--part-turns', '500', '--spill-dir', dir]);
    expect(trained.code, trained.stderr).toBe(0);
    expect(trained.stderr).toContain('not registered (a store keeps no estimators)');
    expect(readdirSync(dir).filter((f) => f.startsWith('routelens-train-'))).toEqual([]);
    const modelArgs = ['replay', '--policy', 'argmax', '--policy', 'cost-aware:5', '--model', onnx, '--bootstrap', '200', '--json'];
    const completedScorings = async () => {
      const store = new ClickHouseStore(parseStoreUrl(url));
      try {
        return Number((await store.query<{ n: string }>(`SELECT count() AS n FROM ${store.database}.scorings WHERE event = 'completed'`))[0]?.n);
      } finally {
        await store.close();
      }
    };
    // A replay with an estimator that has not scored the store scores the selected runs first.
    const first = routelens([...modelArgs, '--store', url]);
    expect(first.code, first.stderr).toBe(0);
    expect(await completedScorings()).toBe(1);
    // Scored on the store with it, a replay reads its ŝ (scoring nothing again) and answers as the database scored
    // with it does.
    const scored = routelens(['score', '--store', url, '--model', onnx, '--ep', 'cpu']);
    expect(scored.code, scored.stderr).toBe(0);
    expect(scored.stderr).toMatch(/scored \d+ turns × \d+ models with from-store .* into the store/);
    const withModel = routelens([...modelArgs, '--store', url]);
    expect(withModel.code, withModel.stderr).toBe(0);
    expect(await completedScorings()).toBe(2);
    expect(JSON.parse(withModel.stdout).s_hat_source).toBe('estimator');
    const noEstimatorIds = (text: string) => ({ ...withoutIds(text), estimator: (JSON.parse(text) as { estimator: { name: string } }).estimator.name });
    // ŝ agree to float32 (storeScoring.test.ts); importance weights amplify that in the doubly robust intervals.
    expectClose(noEstimatorIds(withModel.stdout), noEstimatorIds(routelens([...modelArgs, '--db', db]).stdout), '$', 1e-5);
    for (const [args, message] of [
      [['--run', 'nope'], /^routelens train: clickhouse:\/\/.*: no run named "nope"/],
      [['--profile', 'mtrouter'], /^routelens train: clickhouse:\/\/.*: a ClickHouse store trains with the hash-1024 encoder/],
    ] as const) {
      const r = routelens(['train', '--store', url, '--out', join(dir, 'x.onnx'), ...args]);
      expect(r.code).toBe(1);
      expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
      expect(r.stderr).toMatch(message);
    }
    const byId = routelens(['replay', '--policy', 'argmax', '--store', url, '--estimator', '1']);
    expect(byId.code).toBe(1);
    expect(byId.stderr).toMatch(/^routelens replay: a ClickHouse store knows an estimator by its file: give --model FILE.onnx/);
    // Calibration reads the newest scoring's ŝ (storeScoring.test.ts holds it equal to SQLite's); its figure exports.
    const calibration = routelens(['analyze', 'calibration', '--store', url, '--json']);
    expect(calibration.code, calibration.stderr).toBe(0);
    expect(JSON.parse(calibration.stdout)).toMatchObject({ estimator: { name: 'from-store' }, note: null, overall: { n: expect.any(Number) } });
    expect(JSON.parse(calibration.stdout).overall.n).toBeGreaterThan(0);
    const figure = routelens(['export', 'calibration', '--store', url, '--out', join(dir, 'c.svg')]);
    expect(figure.code, figure.stderr).toBe(0);
    expect(readFileSync(join(dir, 'c.svg'), 'utf8')).toMatch(/<title>Estimator calibration[^]*Calibration of estimator from-store[^]*MAE [\d.]+, ρ [-\d.]+, n = /);
    const embeddings = routelens(['analyze', 'embeddings', '--store', url, '--sample', '40', '--json']);
    expect(embeddings.code, embeddings.stderr).toBe(0);
    expect(JSON.parse(embeddings.stdout).histories.points).toHaveLength(40);
    expect(routelens(['analyze', 'embeddings', '--store', url, '--split', 'train']).stderr).toMatch(/^routelens analyze: embeddings does not take --split/);
    const again = routelens(['import', ...files, '--store', url]);
    expect(again.stderr).toMatch(/0 imported, \d+ skipped, 0 rejected/);
    const clean = routelens(['store', 'clean', '--store', url, '--json']);
    expect(JSON.parse(clean.stdout)).toEqual({ abandoned: [], superseded: [], scorings: [] });
  }, 300_000);
});
