/**
 * The usage targets ρ a run's log states (canonical `policy.usage_targets`, kept in the episode's detail JSON by
 * episodeWriter.ts): what usage-ratio draws as the run's targets when the user sets none. Both stores read the
 * distinct JSON texts per run and agree on them here.
 */
import { nameKeyed } from '../../shared/nameKeyed.ts';
import type { Db } from '../db/dbHandle.ts';

/**
 * One run's targets from the distinct JSON texts its episodes log: the set they all state, or null when none
 * states one or they state different ones (no single target to draw).
 */
export function agreedTargets(texts: readonly (string | null)[]): Record<string, number> | null {
  let agreed: Record<string, number> | null = null;
  let key = '';
  for (const text of texts) {
    if (!text) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return null;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
    const targets = nameKeyed<number>();
    for (const [model, rho] of Object.entries(parsed as Record<string, unknown>)) {
      if (typeof rho !== 'number' || !Number.isFinite(rho) || rho < 0 || rho > 1) return null;
      targets[model] = rho;
    }
    // The same set written in another key order is the same set.
    const k = JSON.stringify(Object.entries(targets).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)));
    if (agreed && k !== key) return null;
    agreed = targets;
    key = k;
  }
  return agreed && Object.keys(agreed).length > 0 ? agreed : null;
}

/** The `usage_targets` of an episode's detail JSON, as JSON text (null: none, or not JSON). */
export function usageTargetsText(detail: string): string | null {
  try {
    const parsed = JSON.parse(detail) as { usage_targets?: unknown } | null;
    return parsed && typeof parsed === 'object' && parsed.usage_targets !== undefined ? JSON.stringify(parsed.usage_targets) : null;
  } catch {
    return null;
  }
}

/** Per run name, the targets its episodes log (runs that state none are absent). `runs`: run ids, none = all. */
export function loggedUsageTargets(db: Db, runs: readonly number[] | null): Map<string, Record<string, number>> {
  const only = runs === null ? '' : ` AND e.run_id IN (${runs.map(() => '?').join(', ') || 'NULL'})`;
  const rows = db
    .prepare(`SELECT r.name AS run, json_extract(x.detail, '$.usage_targets') AS targets FROM episode_text x
      JOIN episodes e ON e.id = x.episode_id JOIN runs r ON r.id = e.run_id
      WHERE x.detail LIKE '%"usage_targets"%'${only} GROUP BY r.name, targets`)
    .all(...(runs ?? [])) as { run: string; targets: string | null }[];
  const byRun = new Map<string, (string | null)[]>();
  for (const r of rows) byRun.set(r.run, [...(byRun.get(r.run) ?? []), r.targets]);
  const out = new Map<string, Record<string, number>>();
  for (const [run, texts] of byRun) {
    const agreed = agreedTargets(texts);
    if (agreed) out.set(run, agreed);
  }
  return out;
}
