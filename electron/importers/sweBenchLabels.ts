/**
 * SWE-bench outcome labels that sit beside a run's trajectories, looked up per instance:
 *
 * - `logs/<instance_id>/report.json` — the harness's grading of one instance (`{resolved}` or `{<id>: {resolved}}`);
 * - `results_summary.json` — `{instances: [{instance_id, resolved}]}`;
 * - `results_summary.csv` — columns `instance_id,resolved` (`True`/`False`);
 * - `trajs/sb-cli-reports/*.json` — sb-cli's `{resolved_ids, unresolved_ids}`.
 *
 * Each folder from the trajectory's up to a stop folder is checked in that order; the nearest answer wins.
 * The run-level files cover every instance of a run, so a folder of 30k trajectories would otherwise parse
 * them 30k times: they are parsed once and kept while their size and mtime stay the same.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { isRegularFile } from './regularFile.ts';
import { dirname, join, relative, isAbsolute } from 'node:path';
import { z } from 'zod';
import { describeIssue } from '../../shared/canonical.ts';

export interface Label {
  resolved: boolean;
  /** The file the label came from, for messages. */
  source: string;
}

const InstanceReport = z.object({ resolved: z.boolean() });
/** Flat (`{resolved, tests_status…}`) or keyed by instance (`{<id>: {resolved…}}`), as harness versions differ. */
const ReportJson = z.record(z.string(), z.unknown());
const SummaryJson = z.object({
  instances: z.array(z.object({ instance_id: z.string(), resolved: z.boolean() })),
});
const SbCliReport = z.object({
  resolved_ids: z.array(z.string()).nullish(),
  unresolved_ids: z.array(z.string()).nullish(),
});

type Labels = ReadonlyMap<string, boolean>;

const reasonOf = (err: unknown): string =>
  err instanceof z.ZodError ? describeIssue(err) : err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err);

interface CacheEntry {
  size: number;
  mtimeMs: number;
  labels: Labels | null;
}

/** Run-level files kept parsed; a few runs imported side by side fit, and the oldest is dropped first. */
const MAX_CACHED_FILES = 32;
const cache = new Map<string, CacheEntry>();

/** Parses a run-level label file once per (size, mtime); null when it is missing or unreadable. */
function cachedLabels(path: string, parse: (text: string) => Labels, warn: (m: string) => void): Labels | null {
  let size: number;
  let mtimeMs: number;
  try {
    const st = statSync(path);
    if (!st.isFile()) return null;
    size = st.size;
    mtimeMs = st.mtimeMs;
  } catch {
    return null;
  }
  const hit = cache.get(path);
  if (hit && hit.size === size && hit.mtimeMs === mtimeMs) return hit.labels;
  let labels: Labels | null = null;
  try {
    labels = parse(readFileSync(path, 'utf8'));
  } catch (err) {
    // A broken label file costs the labels, not the trajectories: warn (once, since the failure is cached).
    warn(`${path}: ignored as a label file (${reasonOf(err)})`);
  }
  cache.delete(path);
  cache.set(path, { size, mtimeMs, labels });
  if (cache.size > MAX_CACHED_FILES) {
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
  return labels;
}

function parseSummaryJson(text: string): Labels {
  const summary = SummaryJson.parse(JSON.parse(text));
  return new Map(summary.instances.map((i) => [i.instance_id, i.resolved]));
}

function parseSummaryCsv(text: string): Labels {
  const rows = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  const cells = (line: string): string[] => line.split(',').map((c) => c.trim().replace(/^"(.*)"$/, '$1'));
  const header = cells(rows[0] ?? '');
  const idCol = header.indexOf('instance_id');
  const resolvedCol = header.indexOf('resolved');
  if (idCol === -1 || resolvedCol === -1) throw new Error('no instance_id and resolved columns');
  const labels = new Map<string, boolean>();
  for (const row of rows.slice(1)) {
    const c = cells(row);
    const id = c[idCol];
    const value = c[resolvedCol]?.toLowerCase();
    if (!id) continue;
    if (value === 'true' || value === '1') labels.set(id, true);
    else if (value === 'false' || value === '0') labels.set(id, false);
  }
  return labels;
}

function parseSbCliReport(text: string): Labels {
  const report = SbCliReport.parse(JSON.parse(text));
  const labels = new Map<string, boolean>();
  for (const id of report.unresolved_ids ?? []) labels.set(id, false);
  for (const id of report.resolved_ids ?? []) labels.set(id, true);
  return labels;
}

/** The per-instance harness report; read each time (one small file per instance, nothing to share). */
function instanceReport(dir: string, instanceId: string, warn: (m: string) => void): Label | null {
  const path = join(dir, 'logs', instanceId, 'report.json');
  let text: string;
  if (!isRegularFile(path)) return null;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return null;
  }
  try {
    const report = ReportJson.parse(JSON.parse(text));
    const own = InstanceReport.safeParse('resolved' in report ? report : report[instanceId]);
    if (own.success) return { resolved: own.data.resolved, source: path };
    warn(`${path}: no "resolved" for ${instanceId}; ignored`);
  } catch (err) {
    warn(`${path}: ignored as a label file (${reasonOf(err)})`);
  }
  return null;
}

function sbCliReports(dir: string): string[] {
  const reports = join(dir, 'trajs', 'sb-cli-reports');
  try {
    return readdirSync(reports)
      .filter((name) => name.endsWith('.json'))
      .sort()
      .map((name) => join(reports, name));
  } catch {
    return [];
  }
}

function labelIn(dir: string, instanceId: string, warn: (m: string) => void): Label | null {
  const own = instanceReport(dir, instanceId, warn);
  if (own) return own;
  const runLevel: [string, (text: string) => Labels][] = [
    [join(dir, 'results_summary.json'), parseSummaryJson],
    [join(dir, 'results_summary.csv'), parseSummaryCsv],
    ...sbCliReports(dir).map((path): [string, (text: string) => Labels] => [path, parseSbCliReport]),
  ];
  for (const [path, parse] of runLevel) {
    const resolved = cachedLabels(path, parse, warn)?.get(instanceId);
    if (resolved !== undefined) return { resolved, source: path };
  }
  return null;
}

const isWithin = (dir: string, ancestor: string): boolean => {
  const rel = relative(ancestor, dir);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

/**
 * The label for `instanceId`, searching every folder from `file`'s own up to `stopDir` (inclusive). `stopDir`
 * must contain `file`; when it does not, only the file's own folder is searched.
 */
export function findSweBenchLabel(file: string, instanceId: string, stopDir: string, warn: (m: string) => void): Label | null {
  let dir = dirname(file);
  const bounded = isWithin(dir, stopDir);
  for (;;) {
    const label = labelIn(dir, instanceId, warn);
    if (label) return label;
    const parent = dirname(dir);
    if (!bounded || dir === stopDir || parent === dir) return null;
    dir = parent;
  }
}

/** Forgets parsed label files (tests that rewrite a file within one mtime tick). */
export function clearSweBenchLabelCache(): void {
  cache.clear();
}
