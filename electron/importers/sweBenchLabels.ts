/**
 * SWE-bench outcome labels that sit beside a run's trajectories, looked up per instance:
 *
 * - `logs/<instance_id>/report.json` — the harness's grading of one instance (`{resolved}` or `{<id>: {resolved}}`);
 * - `results_summary.json` — `{instances: [{instance_id, resolved}]}`;
 * - `results_summary.csv` — columns `instance_id,resolved` (`True`/`False`);
 * - `trajs/sb-cli-reports/*.json` — sb-cli's `{resolved_ids, unresolved_ids}`.
 *
 * Each folder from the trajectory's up to a stop folder is checked in that order; the nearest answer wins. A
 * per-instance report also gives the harness's test groups (FAIL_TO_PASS, PASS_TO_PASS…) and patch checks, kept as
 * the outcome's explanation (sweBenchOutcome).
 * The run-level files cover every instance of a run, so a folder of 30k trajectories would otherwise parse
 * them 30k times: they are parsed once and kept while their size and mtime stay the same.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { isRegularFile } from './regularFile.ts';
import { dirname, join, relative, isAbsolute } from 'node:path';
import { z } from 'zod';
import { describeIssue, isBlankName, MAX_SCORERS, MAX_TESTS, type OutcomeExplanation, type OutcomeTests } from '../../shared/canonical.ts';

export interface Label {
  resolved: boolean;
  /** The file the label came from, for messages. */
  source: string;
  /** What a per-instance report says beyond `resolved`; absent for run-level files, which say only that. */
  report?: HarnessReport;
}

/** A SWE-bench harness report's grading of one instance beyond `resolved`, as logged. */
export interface HarnessReport {
  /** Its `tests_status` groups in the report's order: the tests of each that passed and failed after the patch. */
  tests: OutcomeTests[];
  /** Its other yes/no verdicts (`patch_exists`, `patch_successfully_applied`, `patch_is_None`). */
  checks: Record<string, boolean>;
}

const InstanceReport = z.object({ resolved: z.boolean() });
const TestGroup = z.object({ success: z.array(z.string().max(10_000)).max(MAX_TESTS), failure: z.array(z.string().max(10_000)).max(MAX_TESTS) });

/**
 * The grading of one instance (`{resolved, patch_…, tests_status: {FAIL_TO_PASS: {success, failure}, …}}`) beyond
 * `resolved`; a group that is not lists of test names is left out, the others are kept.
 */
export function harnessReport(entry: Record<string, unknown>): HarnessReport {
  const tests: OutcomeTests[] = [];
  const status = entry.tests_status;
  if (typeof status === 'object' && status !== null && !Array.isArray(status)) {
    for (const [group, value] of Object.entries(status)) {
      const parsed = TestGroup.safeParse(value);
      if (parsed.success && !isBlankName(group) && tests.length < MAX_SCORERS) {
        tests.push({ group: group.slice(0, 100), passed: parsed.data.success, failed: parsed.data.failure });
      }
    }
  }
  const checks: Record<string, boolean> = {};
  for (const [key, value] of Object.entries(entry)) if (key !== 'resolved' && typeof value === 'boolean') checks[key.slice(0, 300)] = value;
  return { tests, checks };
}

/**
 * The outcome's explanation from a harness verdict: the harness as the scorer (`resolved` its value, the patch
 * checks its metadata, `source` the file, as given by the caller) and the report's test groups.
 */
export function sweBenchOutcome(resolved: boolean, source: string, report: HarnessReport | undefined): OutcomeExplanation {
  const checks = report && Object.keys(report.checks).length > 0 ? report.checks : null;
  return {
    scorers: [{ name: 'SWE-bench harness', source, value: resolved, metadata: checks }],
    tests: report?.tests.length ? report.tests : null,
  };
}
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
    const entry = 'resolved' in report ? report : report[instanceId];
    const own = InstanceReport.safeParse(entry);
    if (own.success) return { resolved: own.data.resolved, source: path, report: harnessReport(entry as Record<string, unknown>) };
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
