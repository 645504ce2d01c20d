/**
 * Every formula RouteLens takes from the papers lives here, once, as a pure function (no I/O), so the
 * CLI, the app, the exporter and the tests all compute the same number.
 *
 * AEC targets — MTRouter §3.3 and App. B, as specified in DESIGN §5:
 *   base = 1/N, p = min((t+1)/N, 1), w(p) piecewise linear 0.3 → 1.0 between p0 = 0.3 and p1 = 0.7,
 *   penalty_t = max(base · β(max severity at t) · w(p), 0.2 · base) if turn t has an error, else 0,
 *   S̃_t = S_norm − Σ_{k ≥ t} penalty_k.
 */
import type { Severity } from './canonical.ts';

/** β in MTRouter Eq. 6: high 1.0, medium 0.8, low 0.2 (App. B, "Severity Coefficients"). */
export const SEVERITY_COEF: Readonly<Record<Severity, number>> = { high: 1.0, medium: 0.8, low: 0.2 };

/** Ordinal stored in `turns.max_severity` (0 = no error) so the columnar cache stays numeric. */
export const SEVERITY_LEVEL: Readonly<Record<Severity, number>> = { low: 1, medium: 2, high: 3 };
const LEVEL_TO_SEVERITY: readonly (Severity | null)[] = [null, 'low', 'medium', 'high'];

export function severityFromLevel(level: number): Severity | null {
  return LEVEL_TO_SEVERITY[level] ?? null;
}

export function maxSeverity(severities: Iterable<Severity>): Severity | null {
  let best = 0;
  for (const s of severities) best = Math.max(best, SEVERITY_LEVEL[s]);
  return severityFromLevel(best);
}

export const AEC = { p0: 0.3, p1: 0.7, wMin: 0.3, wMax: 1.0, floorFraction: 0.2 } as const;

/** Progress weight w(p): late errors cost more than early ones. */
export function progressWeight(p: number): number {
  if (p <= AEC.p0) return AEC.wMin;
  if (p >= AEC.p1) return AEC.wMax;
  return AEC.wMin + ((p - AEC.p0) / (AEC.p1 - AEC.p0)) * (AEC.wMax - AEC.wMin);
}

/** penalty_t for a turn at index t (0-based) with the given max severity (null = no error). */
export function turnPenalty(t: number, expectedSteps: number, severity: Severity | null): number {
  if (severity === null) return 0;
  const base = 1 / expectedSteps;
  const p = Math.min((t + 1) / expectedSteps, 1);
  return Math.max(base * SEVERITY_COEF[severity] * progressWeight(p), AEC.floorFraction * base);
}

export interface AecTarget {
  t: number;
  penalty: number;
  /** null when the episode's outcome is unknown. */
  s_tilde: number | null;
}

/** S̃_t for every turn of an episode, given the max severity of each turn in order. */
export function aecTargets(
  scoreNorm: number | null,
  severities: readonly (Severity | null)[],
  expectedSteps: number,
): AecTarget[] {
  if (!(expectedSteps > 0)) throw new RangeError('expected steps must be positive');
  const penalties = severities.map((s, t) => turnPenalty(t, expectedSteps, s));
  const out: AecTarget[] = new Array(penalties.length);
  let suffix = 0;
  for (let t = penalties.length - 1; t >= 0; t--) {
    const penalty = penalties[t] as number;
    suffix += penalty;
    out[t] = { t, penalty, s_tilde: scoreNorm === null ? null : scoreNorm - suffix };
  }
  return out;
}

/**
 * S_norm in [0, 1]: the score scaled by its range; a bare success flag counts as 1 or 0; a score with no
 * range is taken as already normalised when it lies in [0, 1].
 */
export function normaliseScore(
  score: number | null | undefined,
  range: readonly [number, number] | null | undefined,
  success: boolean | null | undefined,
): number | null {
  if (score != null) {
    if (range) return Math.min(1, Math.max(0, (score - range[0]) / (range[1] - range[0])));
    if (score >= 0 && score <= 1) return score;
    return null;
  }
  if (success != null) return success ? 1 : 0;
  return null;
}

/**
 * Wilson score interval for a binomial proportion k/n at z (1.96 → 95%): unlike the normal approximation it
 * stays inside [0, 1] and behaves at k = 0 or k = n, which error-recovery counts often hit.
 */
export function wilsonInterval(k: number, n: number, z = 1.96): [number, number] {
  if (n <= 0) return [0, 1];
  const p = k / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denom;
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

/** lift(m, c) = P(m | c) / P(m): above 1 the router picks m for category c more than it picks m overall. */
export function lift(countMC: number, countC: number, countM: number, total: number): number {
  if (countC === 0 || countM === 0 || total === 0) return Number.NaN;
  return countMC / countC / (countM / total);
}
