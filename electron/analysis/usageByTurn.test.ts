// usage-by-turn on an episode of a million turns over 5,011 models (issue 38 item 6): a dense turn-index × model
// table would be 5 billion counters; the analysis counts only the (index, model) pairs that occur.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../db/database.ts';
import type { Db } from '../db/dbHandle.ts';
import { importPaths } from '../importers/pipeline.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';
import { usageByTurnAnalysis } from './usageByTurn.ts';

const tempDir = useSuiteTempDir();
const TURNS = 1_000_000;
const MODELS = 5_011;
let db: Db;

beforeAll(async () => {
  const dir = tempDir();
  const file = join(dir, 'seed.jsonl');
  // A real import writes the run, the episode and one turn; the rest are copies of that turn (the importer is not
  // what is tested here, and a million-turn import would cost the suite a minute).
  const turn = (t: number, model: string) => ({ t, model, action: { type: 'tool', tool: 'bash' }, cost_usd: 0.001, errors: [] });
  writeFileSync(
    file,
    [
      JSON.stringify({ schema: 'routelens/v1', run: 'huge', episode_id: 'long', outcome: { success: true }, turns: [turn(0, 'm0')] }),
      JSON.stringify({ schema: 'routelens/v1', run: 'short', episode_id: 's', outcome: { success: true }, turns: [turn(0, 'm1'), turn(1, 'm0')] }),
    ].join('\n'),
  );
  db = openDatabase(join(dir, 'huge.db'));
  await importPaths(db, [file]);
  const insertModel = db.prepare('INSERT OR IGNORE INTO models (name) VALUES (?)');
  db.transaction(() => {
    for (let m = 0; m < MODELS; m++) insertModel.run(`m${m}`);
  })();
  const columns = (db.prepare("SELECT name FROM pragma_table_info('turns')").pluck().all() as string[]).filter((c) => !['id', 't', 'model_id'].includes(c));
  const episode = db.prepare("SELECT id FROM episodes WHERE ext_id = 'long'").pluck().get() as number;
  // Turn t goes to model m(t mod 5011): every one is used, each index by exactly one (the pool's models stay unused).
  db.exec("CREATE TEMP TABLE model_rank (rank INTEGER PRIMARY KEY, id INTEGER NOT NULL)");
  db.exec("INSERT INTO model_rank SELECT CAST(substr(name, 2) AS INTEGER), id FROM models WHERE name GLOB 'm[0-9]*'");
  expect(db.prepare('SELECT COUNT(*) FROM model_rank').pluck().get()).toBe(MODELS);
  db.exec(`WITH RECURSIVE n(t) AS (SELECT 1 UNION ALL SELECT t + 1 FROM n WHERE t < ${TURNS - 1})
    INSERT INTO turns (t, model_id, ${columns.join(', ')})
    SELECT n.t, (SELECT id FROM model_rank WHERE rank = n.t % ${MODELS}), ${columns.map((c) => `x.${c}`).join(', ')}
    FROM n, (SELECT * FROM turns WHERE episode_id = ${episode} AND t = 0) AS x`);
  db.prepare('UPDATE turns SET model_id = (SELECT id FROM model_rank WHERE rank = 0) WHERE episode_id = ? AND t = 0').run(episode);
}, 120_000);

describe('usage-by-turn on a million-turn episode over 5,011 models', () => {
  it('counts every index of the long run once, by the model that took it', () => {
    const result = usageByTurnAnalysis(db, { runs: ['huge'] });
    const huge = result.runs[0];
    expect(huge?.run).toBe('huge');
    expect(huge?.turns.length).toBe(TURNS);
    for (const t of [0, 1, 5_010, 5_011, 777_777, TURNS - 1]) {
      expect(huge?.turns[t]).toEqual({ t, n: 1, shares: { [`m${t % MODELS}`]: 1 } });
    }
  });

  it('sums shares to 1 at each index of a run mixing models, in model order', () => {
    const short = usageByTurnAnalysis(db, { maxTurn: 3 }).runs.find((r) => r.run === 'short');
    expect(short?.turns).toEqual([
      { t: 0, n: 1, shares: { m1: 1 } },
      { t: 1, n: 1, shares: { m0: 1 } },
    ]);
  });
});
