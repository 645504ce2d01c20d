/**
 * The files MTRouter's collectors write beside a run's trajectories (`<out>/<instance>/<instance>.traj.json`):
 *
 * - `results.json`, one entry per instance (the trajectory's folder name). ScienceWorld's is flat:
 *   `{<instance>: {task_id, task_name, variation_idx, score, steps, cost, exit_status, done}}`; HLE's nests
 *   them: `{metadata, tasks: {<instance>: {task_id, run_id, category, subject, …, correct}}}`. Other files of
 *   that name (SWE-bench predictions) carry neither `score` nor `correct` and give nothing.
 * - `summary_<split>.json`, written after collecting a split; the name is all we read.
 *
 * A run's results.json covers every instance, so it is parsed once and kept while its size and mtime stay.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { describeIssue } from '../../shared/canonical.ts';
import { ID_SPLITS, type IdSplit } from './mtrouterSplits.ts';
import { pythonJsonText } from './pythonJson.ts';

export interface RunResult {
  score: number | null;
  correct: boolean | null;
  category: string | null;
}

const Entry = z.object({
  score: z.number().nullish(),
  correct: z.boolean().nullish(),
  category: z.string().nullish(),
});
const HleResults = z.object({ tasks: z.record(z.string(), z.unknown()) });
const FlatResults = z.record(z.string(), z.unknown());

function parseResults(text: string): Map<string, RunResult> {
  const value: unknown = JSON.parse(pythonJsonText(text));
  const hle = HleResults.safeParse(value);
  const entries = hle.success ? hle.data.tasks : FlatResults.parse(value);
  const results = new Map<string, RunResult>();
  for (const [instance, raw] of Object.entries(entries)) {
    const entry = Entry.safeParse(raw);
    if (!entry.success) continue;
    const { score, correct, category } = entry.data;
    if (score == null && correct == null) continue;
    results.set(instance, { score: score ?? null, correct: correct ?? null, category: category ?? null });
  }
  return results;
}

const MAX_CACHED = 32;
const cache = new Map<string, { size: number; mtimeMs: number; results: Map<string, RunResult> | null }>();

/** The run's results.json entries by instance; null when there is none or it cannot be read (with a warning). */
export function runResults(runDir: string, warn: (m: string) => void): Map<string, RunResult> | null {
  const path = join(runDir, 'results.json');
  let size: number;
  let mtimeMs: number;
  try {
    const st = statSync(path);
    if (!st.isFile()) return null;
    ({ size, mtimeMs } = st);
  } catch {
    return null;
  }
  const hit = cache.get(path);
  if (hit && hit.size === size && hit.mtimeMs === mtimeMs) return hit.results;
  let results: Map<string, RunResult> | null = null;
  try {
    results = parseResults(readFileSync(path, 'utf8'));
  } catch (err) {
    const reason = err instanceof z.ZodError ? describeIssue(err) : err instanceof Error ? err.message.split('\n')[0] : String(err);
    warn(`${path}: ignored as MTRouter results (${reason})`);
  }
  cache.delete(path);
  cache.set(path, { size, mtimeMs, results });
  if (cache.size > MAX_CACHED) cache.delete(cache.keys().next().value as string);
  return results;
}

/**
 * The in-distribution split a run folder was collected for, when exactly one `summary_<split>.json` of
 * train / val / test_id is there: the reference's collectors write one per split collected into the folder.
 */
export function runIdSplit(runDir: string): IdSplit | null {
  const present = ID_SPLITS.filter((s) => {
    try {
      return statSync(join(runDir, `summary_${s}.json`)).isFile();
    } catch {
      return false;
    }
  });
  return present.length === 1 ? (present[0] as IdSplit) : null;
}

/** Forgets parsed results files (tests that rewrite one within a single mtime tick). */
export function clearRunResultsCache(): void {
  cache.clear();
}
