/**
 * The direct path (episodes resolved in memory, directRows.ts) and the threaded path (canonical files cut into
 * pieces for range threads, threadedFile.ts) against the staging path (stagedRows.ts) on a real 2-shard cluster:
 * the same files give the same rows in every table, sample logs of every format, subagent sessions and parents
 * imported earlier included; a file whose parent comes after its child, and an episode twice in one file, go
 * through staging. The threaded path refuses a bad file at the same line with the same words.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clickhouseSkipReason, startTestCluster, type TestCluster } from '../../../../test/clickhouseCluster.ts';
import { openDatabase } from '../../../db/database.ts';
import { defaultErrorRules } from '../../../analysis/errorRules.ts';
import { EpisodeWriter } from '../../../db/episodeWriter.ts';
import { StageInstead } from '../../../importers/pipeline.ts';
import type { CanonicalEpisode } from '../../../../shared/canonical.ts';
import { simulateToFile } from '../../../../fixtures/simulator/index.ts';
import { parseStoreUrl } from '../../storeUrl.ts';
import { ClickHouseStore } from '../schema/connection.ts';
import { DirectFile } from './directRows.ts';
import { COLUMNS, type ShardedTable } from './episodeRows.ts';
import { importToStore } from './importToStore.ts';
import { initStore, visibleImports } from '../schema/schema.ts';

const skip = clickhouseSkipReason();
if (skip) console.log(skip);

const SAMPLES = ['aider', 'atif', 'claude-code', 'codex', 'copilot-cli', 'gemini-cli', 'inspect', 'mini-swe-agent', 'mtrouter', 'openhands', 'otel', 'swe-agent', 'uno']
  .map((d) => `fixtures/samples/${d}`);

describe('DirectFile', () => {
  it('an episode twice in one file, or a parent after a child settled without it, asks for the staging path', async () => {
    const db = openDatabase(':memory:');
    const writer = new EpisodeWriter(db, defaultErrorRules());
    const sink = { lines: 0, add() { this.lines++; }, full: () => false, flush: async () => undefined };
    const index = { known: new Map(), lookup: async () => new Map() };
    const ep = (id: string, parent?: string): CanonicalEpisode => ({
      schema: 'routelens/v1', run: 'r', episode_id: id, task: {}, outcome: { success: true }, parent: parent ? { episode_id: parent } : null,
      turns: [{ t: 0, model: 'gpt-4o', action: { type: 'message', text: 'hi' }, observation: 'ok' }],
    }) as unknown as CanonicalEpisode;
    const file = { hash: 'h', shown: 'f.jsonl', format: 'canonical' };
    const twice = new DirectFile(1, file, index, sink, 1);
    await twice.add(writer.resolve(ep('a')));
    await expect(twice.add(writer.resolve(ep('a')))).rejects.toThrow(StageInstead);
    // waitTurns 1: the child is settled at once, alone; its parent coming later cannot be honoured here.
    const late = new DirectFile(2, file, { known: new Map(), lookup: async () => new Map() }, sink, 1);
    await late.add(writer.resolve(ep('child', 'parent')));
    await expect(late.add(writer.resolve(ep('parent')))).rejects.toThrow(StageInstead);
    // Held until the file ends, the same child finds its parent.
    const held = new DirectFile(3, file, { known: new Map(), lookup: async () => new Map() }, sink, 1_000);
    await held.add(writer.resolve(ep('child', 'parent')));
    await held.add(writer.resolve(ep('parent')));
    const summary = await held.finish();
    expect(summary.episodes).toBe(2);
    db.close();
  });
});

describe.skipIf(skip !== null)('direct and staged rows on a 2-shard cluster', () => {
  let cluster: TestCluster;
  let dir: string;
  const MODES = ['direct', 'staged', 'threaded'] as const;
  type Mode = (typeof MODES)[number];
  const stores: Record<Mode, ClickHouseStore> = {} as never;
  const reports: Record<string, Awaited<ReturnType<typeof importToStore>>[]> = { direct: [], staged: [], threaded: [] };
  /** Every canonical file through two range threads, in pieces of a few episodes. */
  const THREADED = { threads: 2, threadedMinBytes: 0, pieceBytes: 16 * 1024 };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'routelens-direct-'));
    cluster = await startTestCluster(2);
    const simulated: string[] = [];
    for (const [preset, seed] of [['scienceworld', 3], ['critique', 4], ['corl', 5], ['uno', 6]] as const) {
      const out = join(dir, `${preset}.jsonl`);
      await simulateToFile({ preset, episodes: 60, seed, out });
      simulated.push(out);
    }
    // Subagent chains in canonical files: parents in a first import, children in a second; a child before its
    // parent in one file (staging), a cycle, a grandchild.
    const base = JSON.parse(readFileSync(simulated[0] as string, 'utf8').split('\n')[0] as string) as Record<string, unknown>;
    const ep = (id: string, parent: string | null, run = 'chains'): string => JSON.stringify({ ...base, run, episode_id: id, parent: parent ? { episode_id: parent, t: 0 } : null });
    const parents = join(dir, 'parents.jsonl');
    writeFileSync(parents, [ep('p1', null), ep('p2', null), ep('p2-child', 'p2')].join('\n'));
    const children = join(dir, 'children.jsonl');
    writeFileSync(children, [ep('c1', 'p1'), ep('c2', 'p2-child'), ep('g1', 'c1'), ep('x', 'y'), ep('y', 'x'), ep('orphan', 'nowhere')].join('\n'));
    // Error types first named in different pieces, in an order no one thread sees whole: the masks' bits are the
    // file's ids, given out in the file's order.
    const typed = join(dir, 'error-types.jsonl');
    const names = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta'];
    writeFileSync(typed, Array.from({ length: 24 }, (_, i) => {
      const turns = (base.turns as Record<string, unknown>[]).map((t, j) => ({ ...t, errors: [{ type: names[(i * 5 + j) % names.length] as string, severity: (['low', 'medium', 'high'] as const)[(i + j) % 3] }] }));
      return JSON.stringify({ ...base, run: 'error-types', episode_id: `e${i}`, turns });
    }).reverse().join('\n'));
    const late = join(dir, 'late-parent.jsonl');
    writeFileSync(late, [ep('kid', 'mum', 'late'), ep('mum', null, 'late'), ep('solo', null, 'late')].join('\n'));
    for (const mode of MODES) {
      const store = new ClickHouseStore(parseStoreUrl(cluster.url(mode)));
      await initStore(store);
      stores[mode] = store;
      // Small batches and a small wait for parents: several inserts, and children settled before the file ends.
      const options = { batchRows: 40, direct: mode !== 'staged', ...(mode === 'threaded' ? THREADED : { threads: 1 }) };
      reports[mode]?.push(await importToStore(store, [...simulated, ...SAMPLES, parents, typed], options));
      reports[mode]?.push(await importToStore(store, [children, late], options));
    }
  }, 300_000);

  afterAll(async () => {
    for (const s of Object.values(stores)) await s.close();
    await cluster?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('every path imports the same files with the same counts and warnings', () => {
    const shape = (r: Awaited<ReturnType<typeof importToStore>>) => ({ files: r.files, warnings: r.warnings, modelsAdded: r.modelsAdded });
    expect(reports.direct?.map(shape)).toEqual(reports.staged?.map(shape));
    expect(reports.threaded?.map(shape)).toEqual(reports.staged?.map(shape));
    expect(reports.direct?.flatMap((r) => r.files).every((f) => f.status === 'imported')).toBe(true);
    expect(reports.direct?.flatMap((r) => r.files).length).toBeGreaterThan(30);
  });

  it('every table holds the same rows (all columns but the import id)', async () => {
    for (const table of Object.keys(COLUMNS) as ShardedTable[]) {
      const columns = COLUMNS[table].filter((c) => c !== 'import_id');
      const rows = async (mode: Mode): Promise<string[]> => {
        const s = stores[mode];
        const found = await s.query(
          `SELECT ${columns.join(', ')} FROM ${mode}.${table} WHERE import_id GLOBAL IN (${visibleImports(s)}) ORDER BY ${columns.join(', ')}`,
        );
        return found.map((r) => JSON.stringify(r));
      };
      const [direct, staged, threaded] = [await rows('direct'), await rows('staged'), await rows('threaded')];
      expect(direct.length, table).toBeGreaterThan(0);
      expect(direct, table).toEqual(staged);
      expect(threaded, table).toEqual(staged);
    }
  });

  it('the file whose parent came after a child settled without it went through staging (its direct rows abandoned)', async () => {
    const abandoned = async (mode: Mode) =>
      (await stores[mode].query<{ path: string }>(`SELECT path FROM ${mode}.imports WHERE event = 'abandoned'`)).map((r) => r.path);
    expect(await abandoned('direct')).toEqual([join(dir, 'children.jsonl')]);
    expect(await abandoned('staged')).toEqual([]);
    // In pieces of a few episodes, the child waits for its parent no longer than its own piece (children.jsonl's
    // cycle lies within one piece).
    expect(await abandoned('threaded')).toEqual([join(dir, 'late-parent.jsonl')]);
  });

  it('the threaded path refuses a bad file as the direct path does: the first fault by line, the same words, nothing counted', async () => {
    const lines = readFileSync(join(dir, 'critique.jsonl'), 'utf8').split('\n').filter(Boolean);
    const numbered = (run: string) => lines.map((l) => JSON.stringify({ ...JSON.parse(l), run }));
    const write = (name: string, content: string | Buffer): string => {
      const path = join(dir, `${name}.jsonl`);
      writeFileSync(path, content);
      return path;
    };
    const bad = numbered('bad');
    const withBudget = (l: string, maxTurns: number) => JSON.stringify({ ...JSON.parse(l), budget: { max_turns: maxTurns } });
    const files = [
      // A byte order mark, CRLF endings and blank lines before a schema fault far into the file.
      write('schema-late', `\uFEFF${[...bad.slice(0, 30), '', '  ', JSON.stringify({ ...JSON.parse(bad[30] as string), turns: 'none' }), ...bad.slice(31)].join('\r\n')}\r\n`),
      write('duplicate-far', [...numbered('dup').slice(0, 40), numbered('dup')[3], ...numbered('dup').slice(40)].join('\n')),
      write('json-late', [...numbered('json').slice(0, 33), '{"schema": "routelens/v1", ', ...numbered('json').slice(33)].join('\n')),
      write('utf8-late', Buffer.concat([Buffer.from(`${numbered('utf8').slice(0, 21).join('\n')}\n`), Buffer.from([0x7b, 0xff, 0x7d, 0x0a]), Buffer.from(numbered('utf8').slice(21).join('\n'))])),
      // A value the store cannot hold (a turn budget past Int32) before a schema fault: the earlier fault is reported.
      write('unstorable-first', [...numbered('big').slice(0, 12), withBudget(numbered('big')[12] as string, 2 ** 40), ...numbered('big').slice(13, 20), '[]', ...numbered('big').slice(20)].join('\n')),
      write('last-line-bad', [...numbered('last'), '{"schema": "routelens/v1"}'].join('\n')),
      // A value the store cannot hold just before a duplicate (which alone would send the file through staging).
      write('unstorable-then-duplicate', [...numbered('ud').slice(0, 10), withBudget(numbered('ud')[10] as string, 2 ** 40), numbered('ud')[3], ...numbered('ud').slice(11)].join('\n')),
    ];
    const store = stores.threaded;
    const direct = await importToStore(store, files, { threads: 1 });
    const threaded = await importToStore(store, files, THREADED);
    expect(threaded.files).toEqual(direct.files);
    expect(direct.files.map((f) => f.status)).toEqual(files.map(() => 'rejected'));
    expect(direct.files.map((f) => f.reason?.replace(dir, 'DIR'))).toEqual([
      expect.stringMatching(/^DIR\/schema-late\.jsonl:33: turns: /),
      expect.stringMatching(/^DIR\/duplicate-far\.jsonl:41: duplicate episode_id ".*" in run "dup" \(first on line 4\)$/),
      expect.stringMatching(/^DIR\/json-late\.jsonl:34: invalid JSON: /),
      'DIR/utf8-late.jsonl:22: not valid UTF-8',
      expect.stringMatching(/^DIR\/unstorable-first\.jsonl:1: episode ".*": .*max_turns.* in a ClickHouse store$/),
      expect.stringMatching(/^DIR\/last-line-bad\.jsonl:61: /),
      expect.stringMatching(/^DIR\/unstorable-then-duplicate\.jsonl:1: episode ".*": .*max_turns.* in a ClickHouse store$/),
    ]);
    const visible = await store.query<{ n: string }>(
      `SELECT count() AS n FROM threaded.episodes WHERE run IN ('bad', 'dup', 'json', 'utf8', 'big', 'last', 'ud') AND import_id GLOBAL IN (${visibleImports(store)})`,
    );
    expect(visible).toEqual([{ n: '0' }]);
  });

  it('two imports of different files at once into one store: each file complete and counted once', async () => {
    const store = stores.direct;
    const lines = readFileSync(join(dir, 'critique.jsonl'), 'utf8').split('\n').filter(Boolean);
    const paths = ['a', 'b'].map((name) => {
      const path = join(dir, `at-once-${name}.jsonl`);
      writeFileSync(path, lines.map((l) => JSON.stringify({ ...JSON.parse(l), run: `at-once-${name}` })).join('\n'));
      return path;
    });
    const reports = await Promise.all(paths.map((p) => importToStore(store, [p], { batchRows: 50 })));
    expect(reports.map((r) => r.files.map((f) => [f.status, f.episodes]))).toEqual([[['imported', lines.length]], [['imported', lines.length]]]);
    const counted = await store.query<{ run: string; n: string }>(
      `SELECT run, count() AS n FROM direct.episodes WHERE run LIKE 'at-once-%' AND import_id GLOBAL IN (${visibleImports(store)}) GROUP BY run ORDER BY run`,
    );
    expect(counted).toEqual([{ run: 'at-once-a', n: String(lines.length) }, { run: 'at-once-b', n: String(lines.length) }]);
  });

  it('sessions: children join their parent\'s root, imported earlier or in the same file; a cycle and an orphan stand alone', async () => {
    const s = stores.direct;
    const rows = await s.query<{ ext_id: string; episode_key: string; root_key: string }>(
      `SELECT ext_id, episode_key, root_key FROM direct.episodes WHERE run IN ('chains', 'late') AND import_id GLOBAL IN (${visibleImports(s)})`,
    );
    const byKey = new Map(rows.map((r) => [r.episode_key, r.ext_id]));
    expect(Object.fromEntries(rows.map((r) => [r.ext_id, byKey.get(r.root_key)]))).toEqual({
      p1: 'p1', p2: 'p2', 'p2-child': 'p2', c1: 'p1', c2: 'p2', g1: 'p1', x: 'x', y: 'y', orphan: 'orphan', kid: 'mum', mum: 'mum', solo: 'solo',
    });
  });
});
