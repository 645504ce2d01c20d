/**
 * The demo database `npm start` opens: the bundled real samples of every format and the canonical example runs. Built
 * into a temporary file and renamed into place, so an interrupted build never leaves a half database.
 */
import { existsSync, renameSync, rmSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase } from './db/database.ts';
import { importPaths } from './importers/pipeline.ts';

const fixture = (p: string): string => fileURLToPath(new URL(`../fixtures/${p}`, import.meta.url));

export const DEMO_SOURCES: readonly { path: string; run?: string }[] = [
  { path: 'canonical/example.jsonl' },
  { path: 'samples/mini-swe-agent', run: 'swe-gemini-3-pro (mini-swe-agent)' },
  { path: 'samples/mtrouter/local.traj.json', run: 'mtrouter-legacy-fixture' },
  { path: 'samples/swe-agent' },
  { path: 'samples/inspect' },
  { path: 'samples/otel/genai-attribute-dialects' },
  { path: 'samples/otel/vercel-ai-sdk-v6' },
  // The same five paper transcripts exist as .xml files too; one container is enough for the demo.
  { path: 'samples/uno/uno-transcripts.jsonl', run: 'uno-orchestra (paper cases)' },
];

export interface DemoOptions {
  force?: boolean;
  onProgress?: (message: string) => void;
}

export async function buildDemo(path: string, options: DemoOptions = {}): Promise<string> {
  if (existsSync(path) && !options.force) return `${path} exists (use --force to rebuild)`;
  mkdirSync(dirname(path) || '.', { recursive: true });
  const tmp = `${path}.building`;
  for (const suffix of ['', '-wal', '-shm']) rmSync(tmp + suffix, { force: true });
  const db = openDatabase(tmp);
  let episodes = 0;
  try {
    for (const [i, src] of DEMO_SOURCES.entries()) {
      const file = fixture(src.path);
      if (!existsSync(file)) continue;
      const report = await importPaths(db, [file], {
        runName: src.run,
        onProgress: (p) => options.onProgress?.(`demo ${i + 1}/${DEMO_SOURCES.length}: ${p.episodes} episodes`),
      });
      const bad = report.files.find((f) => f.status === 'rejected');
      if (bad) throw new Error(`demo source rejected: ${bad.reason}`);
      episodes += report.files.reduce((a, f) => a + f.episodes, 0);
    }
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
  for (const suffix of ['-wal', '-shm']) rmSync(path + suffix, { force: true });
  renameSync(tmp, path);
  for (const suffix of ['-wal', '-shm']) rmSync(tmp + suffix, { force: true });
  return `demo database ${path}: ${episodes} episodes`;
}
