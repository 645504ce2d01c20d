/**
 * A store's sessions read in parts (storeSessionsPart.ts) on a real 2-shard cluster: however many parts, every
 * episode is read once, with all its turns and their text, and a session's episodes (subagents and theirs) come in
 * one part.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clickhouseSkipReason, startTestCluster, type TestCluster } from '../../../../test/clickhouseCluster.ts';
import { simulateToFile } from '../../../../fixtures/simulator/index.ts';
import { parseStoreUrl } from '../../storeUrl.ts';
import { ClickHouseStore } from '../schema/connection.ts';
import { importToStore } from '../import/importToStore.ts';
import { initStore, visibleRows } from '../schema/schema.ts';
import { readSessionsPart, sessionParts, WHOLE_STORE, type PartSession } from './storeSessionsPart.ts';

const skip = clickhouseSkipReason();
if (skip) console.log(skip);

describe.skipIf(skip !== null)('sessions read in parts of root-key ranges', () => {
  let cluster: TestCluster;
  let store: ClickHouseStore;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'routelens-parts-'));
    cluster = await startTestCluster(2);
    store = new ClickHouseStore(parseStoreUrl(cluster.url('parts')));
    await initStore(store);
    const simulated = join(dir, 'sim.jsonl');
    await simulateToFile({ preset: 'scienceworld', episodes: 150, seed: 8, out: simulated });
    // 40 sessions of a root, two subagents and a subagent's subagent: children whose keys lie outside their root's part.
    const base = JSON.parse(readFileSync(simulated, 'utf8').split('\n')[0] as string) as Record<string, unknown>;
    const ep = (id: string, parent: string | null): string => JSON.stringify({ ...base, run: 'sessions', episode_id: id, parent: parent ? { episode_id: parent, t: 0 } : null });
    const sessions = join(dir, 'sessions.jsonl');
    writeFileSync(sessions, Array.from({ length: 40 }, (_x, i) => [ep(`r${i}`, null), ep(`a${i}`, `r${i}`), ep(`b${i}`, `r${i}`), ep(`g${i}`, `a${i}`)]).flat().join('\n'));
    await importToStore(store, [simulated, sessions]);
  }, 240_000);

  afterAll(async () => {
    await store?.close();
    await cluster?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const shape = (s: PartSession) => JSON.stringify({ key: s.key, root: s.rootKey, run: s.run, task: s.episode.task_text, turns: s.turns });

  it('every episode once, with its turns and text, a session in one part, however many parts', async () => {
    const where = visibleRows(store);
    const [size] = await store.query<{ turns: string; episodes: string; children: string }>(
      `SELECT sum(n_turns) AS turns, count() AS episodes, countIf(episode_key != root_key) AS children FROM ${store.table('episodes')} WHERE ${where}`,
    );
    expect(Number(size?.children)).toBe(120);
    const whole = (await readSessionsPart(store, { where, params: {}, part: WHOLE_STORE })).map(shape).sort();
    expect(whole).toHaveLength(Number(size?.episodes));
    for (const turnsPerPart of [400, 3_000, Number.MAX_SAFE_INTEGER]) {
      const parts = await sessionParts(store, { where, params: {}, turns: Number(size?.turns), turnsPerPart });
      expect(parts.length).toBe(Math.max(1, Math.ceil(Number(size?.turns) / turnsPerPart)));
      const partOfRoot = new Map<string, number>();
      const read: string[] = [];
      for (const [p, part] of parts.entries()) {
        for (const s of await readSessionsPart(store, { where, params: {}, part })) {
          read.push(shape(s));
          expect(partOfRoot.get(s.rootKey) ?? p, `session ${s.rootKey} in one part`).toBe(p);
          partOfRoot.set(s.rootKey, p);
        }
      }
      expect(read.sort()).toEqual(whole);
      if (turnsPerPart === 400) {
        // The sessions run's children are spread over the parts, not all in the first or last.
        const sessionsRun = (await store.query<{ k: string }>(`SELECT root_key AS k FROM ${store.table('episodes')} WHERE ${where} AND run = 'sessions'`)).map((r) => r.k);
        expect(new Set(sessionsRun.map((k) => partOfRoot.get(k))).size).toBeGreaterThan(parts.length / 3);
      }
    }
  });

  it('a condition on the episodes still selects within the parts', async () => {
    const where = `${visibleRows(store)} AND run = {run:String}`;
    const params = { run: 'sessions' };
    const parts = await sessionParts(store, { where, params, turns: 10_000, turnsPerPart: 500 });
    const keys: string[] = [];
    for (const part of parts) keys.push(...(await readSessionsPart(store, { where, params, part })).map((s) => s.key));
    expect(keys).toHaveLength(160);
    expect(new Set(keys).size).toBe(160);
  });
});
