/** Test support: a database holding simulated episodes (fixtures/simulator), imported the way a user would. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { simulate, type PresetName } from '../../fixtures/simulator/index.ts';
import { openDatabase } from '../db/database.ts';
import type { Db } from '../db/dbHandle.ts';
import { importPaths } from '../importers/pipeline.ts';

export async function simulatedDb(dir: string, preset: PresetName, episodes: number, seed = 1): Promise<{ db: Db; path: string }> {
  const jsonl = join(dir, `${preset}.jsonl`);
  writeFileSync(jsonl, [...simulate({ preset, episodes, seed })].map((e) => JSON.stringify(e)).join('\n') + '\n');
  const path = join(dir, 'sim.db');
  const db = openDatabase(path);
  const report = await importPaths(db, [jsonl]);
  if (report.files[0]?.status !== 'imported') throw new Error(`simulated import failed: ${report.files[0]?.reason ?? 'no file'}`);
  return { db, path };
}
