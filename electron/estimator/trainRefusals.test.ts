// Training refuses data it cannot learn from with one line that says what is missing and how to supply it
// (issue 14 item 9): no outcomes, too few episodes, one model, an unknown run.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../db/database.ts';
import { importPaths } from '../importers/pipeline.ts';
import { useTempDir } from '../testing/tmp.ts';
import { TrainingDataError } from './dataset.ts';
import { trainToFile } from './trainPipeline.ts';

const tempDir = useTempDir();

interface Ep {
  id: string;
  models: string[];
  score?: number;
}

/** A database of canonical episodes, one turn per model listed; `score` absent = no outcome. */
async function dbOf(episodes: Ep[]): Promise<string> {
  const dir = tempDir();
  const lines = episodes.map((e) =>
    JSON.stringify({
      schema: 'routelens/v1',
      run: 'r',
      episode_id: e.id,
      task: { id: e.id, type: 'qa', category: 'c', split: null, difficulty: null, text: 'Say hi' },
      outcome: e.score === undefined ? { score: null, score_range: null, success: null, exit: 'Submitted' } : { score: e.score, score_range: [0, 1], success: e.score > 0.5, exit: 'Submitted' },
      turns: e.models.map((model, t) => ({ t, model, action: { type: 'message', tool: null, text: 'hi' }, observation: 'ok' })),
    }),
  );
  const file = join(dir, 'eps.jsonl');
  writeFileSync(file, `${lines.join('\n')}\n`);
  const path = join(dir, 'x.db');
  const db = openDatabase(path);
  try {
    const report = await importPaths(db, [file]);
    expect(report.files[0]?.status, report.files[0]?.reason).toBe('imported');
  } finally {
    db.close();
  }
  return path;
}

async function refusal(dbPath: string, extra: { runs?: string[] } = {}): Promise<string> {
  const e = await trainToFile({ dbPath, out: join(tempDir(), 'm.onnx'), maxEpochs: 1, ...extra }).then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(TrainingDataError);
  const message = (e as Error).message;
  expect(message.split('\n')).toHaveLength(1);
  expect(message.startsWith(`${dbPath}: `)).toBe(true);
  return message;
}

describe('training refuses, saying what is missing and how to supply it', () => {
  it('when no episode has an outcome', async () => {
    const db = await dbOf([{ id: 'a', models: ['gpt-5', 'kimi-k2'] }, { id: 'b', models: ['gpt-5'] }]);
    const m = await refusal(db);
    expect(m).toMatch(/no episode has an outcome \(a score or a success flag\).*\(2 episodes without one\)/);
    expect(m).toMatch(/"outcome" with "score".*routelens\/v1.*report\.json/);
  });

  it('when only one episode has one (nothing to hold out)', async () => {
    const db = await dbOf([{ id: 'a', models: ['gpt-5', 'kimi-k2'], score: 1 }, { id: 'b', models: ['gpt-5'] }]);
    expect(await refusal(db)).toMatch(/1 episode with an outcome and turns: .* needs at least 2: import more episodes with outcomes/);
  });

  it('when every turn used one model', async () => {
    const db = await dbOf([{ id: 'a', models: ['gpt-5'], score: 1 }, { id: 'b', models: ['gpt-5', 'gpt-5'], score: 0 }]);
    expect(await refusal(db)).toMatch(/used one model \(gpt-5\): .* at least 2/);
  });

  it('when a run named with --run is not there', async () => {
    const db = await dbOf([{ id: 'a', models: ['gpt-5'], score: 1 }]);
    expect(await refusal(db, { runs: ['nope'] })).toMatch(/no run named "nope" \(runs here: "r"\)/);
  });
});
