// Issue 36 item 4: which sessions are running and what they spend, from the log's own timestamps and the followed
// files' last changes; item 1: the followed folders, remembered in the database through the API's write queue.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../db/database.ts';
import { importPaths } from '../importers/pipeline.ts';
import { createApi, openApiDatabase } from '../services/api.ts';
import { dispatch } from '../services/dispatch.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';
import { liveSessions } from './liveSessions.ts';

const tempDir = useSuiteTempDir();
const NOW = Date.parse('2026-11-29T23:00:00.000Z');
const ago = (minutes: number) => new Date(NOW - minutes * 60_000).toISOString();
let dbPath: string;

function turn(t: number, model: string, minutesAgo: number, cost: number | null) {
  return { t, model, action: { type: 'message', text: `call ${t}` }, timestamp: ago(minutesAgo), ...(cost === null ? {} : { cost_usd: cost }) };
}

beforeAll(async () => {
  dbPath = join(tempDir(), 'live.db');
  const file = join(tempDir(), 'live.jsonl');
  const episodes = [
    // Running: 30 min of calls, the last a minute ago; the last two on one model; one call's cost unknown.
    { episode_id: 'busy', turns: [turn(0, 'gpt-5', 30, 1), turn(1, 'claude-opus-4', 20, 2), turn(2, 'gpt-5', 9, 0.5), turn(3, 'claude-opus-4', 5, 0.25), turn(4, 'mystery-model-x', 3, null), turn(5, 'mystery-model-x', 1, 0.25)] },
    // Quiet for an hour.
    { episode_id: 'done', turns: [turn(0, 'gpt-5', 70, 1), turn(1, 'gpt-5', 60, 1)] },
  ];
  writeFileSync(file, episodes.map((e) => JSON.stringify({ schema: 'routelens/v1', run: 'live-run', task: { id: e.episode_id, text: 't' }, ...e })).join('\n') + '\n');
  // No timestamps at all: live only through its followed file.
  const untimed = join(tempDir(), 'untimed.jsonl');
  writeFileSync(untimed, JSON.stringify({ schema: 'routelens/v1', run: 'untimed-run', episode_id: 'quiet', task: { id: 'q', text: 't' }, turns: [{ t: 0, model: 'gpt-5', action: { type: 'message', text: 'x' }, cost_usd: 0.1 }] }) + '\n');
  const db = openDatabase(dbPath);
  await importPaths(db, [file, untimed]);
  const source = db.prepare("SELECT source_id FROM episodes WHERE ext_id = 'quiet'").pluck().get() as number;
  db.prepare(`INSERT INTO followed_files (path, source_id, format, dev, ino, size, cursor, head_hash, tail_hash, mtime_ms, changed_at, state)
              VALUES (?, ?, 'canonical', '1', '2', 10, 10, 'h', 't', 0, ?, 'following')`).run(untimed, source, ago(2));
  db.close();
});

describe('liveSessions', () => {
  it('lists the episodes active within N minutes with spend, rate, mix and the current streak', () => {
    const db = openApiDatabase(dbPath);
    try {
      const live = liveSessions(db, 5, NOW);
      expect(live.map((s) => s.ext_id)).toEqual(['busy', 'quiet']);
      const busy = live[0];
      expect(busy).toMatchObject({ run: 'live-run', last_at: ago(1), calls: 6, known_cost: 4, unpriced_calls: 1, current_model: 'mystery-model-x', calls_since_switch: 2 });
      expect(busy?.model_mix).toEqual([{ model: 'claude-opus-4', calls: 2 }, { model: 'gpt-5', calls: 2 }, { model: 'mystery-model-x', calls: 2 }]);
      // Last 10 minutes: 0.5 + 0.25 + 0.25 known (and one unknown) over 10 min = $6/h, a lower bound.
      expect(busy?.rate_usd_per_h).toBeCloseTo(6, 9);
      expect(busy?.rate_unpriced_calls).toBe(1);
      // Live through its followed file's change; its calls carry no timestamps, so no rate.
      expect(live[1]).toMatchObject({ ext_id: 'quiet', last_at: ago(2), rate_usd_per_h: null, known_cost: 0.1, calls_since_switch: 1 });
      expect(liveSessions(db, 90, NOW).map((s) => s.ext_id)).toEqual(['busy', 'quiet', 'done']);
      expect(liveSessions(db, 5, NOW + 10 * 60_000)).toEqual([]);
    } finally {
      db.close();
    }
  });
});

describe('followed folders', () => {
  it('adds existing absolute folders once, refuses the rest, removes, and remembers them in the database', async () => {
    const api = createApi(openApiDatabase(dbPath), dbPath);
    const a = join(tempDir(), 'agents-a');
    mkdirSync(a);
    expect(await api.followedFolders({})).toEqual([]);
    const added = await dispatch(api, 'followFolders', { paths: [a, `${a}/`] });
    expect(added).toMatchObject({ ok: true, value: [{ path: a }] });
    expect(await dispatch(api, 'followFolders', { paths: ['relative/dir'] })).toMatchObject({ ok: false, error: { kind: 'input', message: /absolute/ } });
    expect(await dispatch(api, 'followFolders', { paths: [join(tempDir(), 'nope')] })).toMatchObject({ ok: false, error: { kind: 'input', message: /no folder/ } });
    expect(await dispatch(api, 'followFolders', { paths: [join(tempDir(), 'live.jsonl')] })).toMatchObject({ ok: false, error: { kind: 'input', message: /not a folder/ } });
    const reopened = createApi(openApiDatabase(dbPath), dbPath);
    expect((await reopened.followedFolders({})).map((f) => f.path)).toEqual([a]);
    expect(await reopened.unfollowFolder({ path: a })).toEqual([]);
  });
});
