/**
 * The demo database `npm start` opens: the bundled real samples of every format, the canonical example runs
 * and simulated runs of every preset (fixtures/simulator), scored with the shipped estimator. Built
 * into a temporary file and renamed into place, so an interrupted build never leaves a half database.
 */
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase } from './db/database.ts';
import { importPaths } from './importers/pipeline.ts';
import { scoreDatabase } from './estimator/scoreDatabase.ts';
import { DEFAULT_ESTIMATOR_PATH } from './estimator/whatIf.ts';
import { PRESET_NAMES, simulateToFile } from '../fixtures/simulator/index.ts';

const fixture = (p: string): string => fileURLToPath(new URL(`../fixtures/${p}`, import.meta.url));

export const DEMO_SOURCES: readonly { path: string; run?: string }[] = [
  { path: 'canonical/example.jsonl' },
  { path: 'samples/mini-swe-agent', run: 'swe-gemini-3-pro (mini-swe-agent)' },
  { path: 'samples/mtrouter/local.traj.json', run: 'mtrouter-legacy-fixture' },
  // MTRouter's own saved format (hand-checked targets, fixtures/mtrouter/README.md): routers, splits, HLE subjects.
  { path: 'mtrouter/scienceworld', run: 'mtrouter-format (ScienceWorld)' },
  { path: 'mtrouter/hle', run: 'mtrouter-format (HLE)' },
  { path: 'samples/swe-agent' },
  { path: 'samples/inspect' },
  { path: 'samples/otel/genai-attribute-dialects' },
  { path: 'samples/otel/vercel-ai-sdk-v6' },
  // The same five paper transcripts exist as .xml files too; one container is enough for the demo.
  { path: 'samples/uno/uno-transcripts.jsonl', run: 'uno-orchestra (paper cases)' },
  // The everyday agents (issue 15): real sessions with model switches, subagents and cache-priced costs.
  { path: 'samples/claude-code/spotter' },
  { path: 'samples/gemini-cli/vct-gemini.jsonl' },
  { path: 'samples/codex/vct-codex.jsonl' },
  { path: 'samples/copilot-cli/vct-copilot.jsonl' },
  { path: 'samples/openhands/basic_gui_mode.json' },
  { path: 'samples/atif/openagents-tbench-regex-log' },
  { path: 'samples/aider/chat-history.md', run: "aider (the Aider author's own history)" },
  // Issue 34's agents: a Cline task folder, a Crush session database (read from a private copy), an OpenCode export.
  { path: 'samples/cline/gmfstu-task-1769053680585' },
  { path: 'samples/crush/scn-ts-core/.crush/crush.db' },
  { path: 'samples/opencode/session__hidden-river__ses_39b709b7fffea1aT6PAuEvX6Zq.json' },
];

/** Simulated episodes per preset: enough for every figure to have something to show, quick to build (~2 s). */
export const DEMO_EPISODES_PER_PRESET = 300;
const DEMO_SEED = 20261122;

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
  const simDir = mkdtempSync(join(tmpdir(), 'routelens-demo-'));
  let episodes = 0;
  try {
    const sources: { path: string; run?: string; label: string }[] = DEMO_SOURCES.map((s) => ({
      ...s, path: fixture(s.path), label: s.path,
    }));
    for (const preset of PRESET_NAMES) {
      const out = join(simDir, `${preset}.jsonl`);
      options.onProgress?.(`demo: simulating ${preset}`);
      await simulateToFile({ preset, episodes: DEMO_EPISODES_PER_PRESET, seed: DEMO_SEED, out });
      sources.push({ path: out, label: `simulated ${preset}` });
    }
    for (const [i, src] of sources.entries()) {
      if (!existsSync(src.path)) continue;
      const report = await importPaths(db, [src.path], {
        runName: src.run,
        onProgress: (p) => options.onProgress?.(`demo ${i + 1}/${sources.length} (${src.label}): ${p.episodes} episodes`),
      });
      const bad = report.files.find((f) => f.status === 'rejected');
      if (bad) throw new Error(`demo source rejected: ${bad.reason}`);
      episodes += report.files.reduce((a, f) => a + f.episodes, 0);
    }
  } finally {
    db.close();
    rmSync(simDir, { recursive: true, force: true });
  }
  // ŝ for every turn with the shipped estimator, so the policy lab's direct method and what-if's neighbours
  // work on first start.
  let scored = '';
  if (existsSync(DEFAULT_ESTIMATOR_PATH)) {
    const r = await scoreDatabase(tmp, DEFAULT_ESTIMATOR_PATH, {
      onProgress: (p) => options.onProgress?.(`demo: scoring ${p.rows}/${p.total} turns with the default estimator (${p.provider})`),
    });
    scored = `, ${r.rows} turns scored on ${r.provider}`;
  }
  const done = openDatabase(tmp);
  try {
    done.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    done.close();
  }
  for (const suffix of ['-wal', '-shm']) rmSync(path + suffix, { force: true });
  renameSync(tmp, path);
  for (const suffix of ['-wal', '-shm']) rmSync(tmp + suffix, { force: true });
  return `demo database ${path}: ${episodes} episodes${scored}`;
}
