/**
 * `error-recovery` (DESIGN §8, MTRouter Fig. 4): over consecutive turn pairs (t, t+1) of an episode where turn
 * t has an error — p_switch = share whose turn t+1 runs on a different model, p_recover = share whose turn t+1
 * has no error, also split by stayed / switched — per run, with Wilson 95% intervals.
 */
import { wilsonInterval } from '../../shared/formulas.ts';
import type { Db } from '../db/dbHandle.ts';
import type { ErrorRecoveryResult, RecoveryGroup } from '../../shared/analysisResults.ts';
import { columnar, selectEpisodes } from './columnar.ts';

export type { RecoveryGroup } from '../../shared/analysisResults.ts';

const share = (k: number, n: number): number | null => (n === 0 ? null : k / n);

export function errorRecoveryAnalysis(db: Db, options: { runs?: string[]; split?: string } = {}): ErrorRecoveryResult {
  const data = columnar(db);
  const episodes = selectEpisodes(data, options.runs, options.split);
  const byRun = new Map<number, { n: number; sw: number; rec: number; stay: number; recStay: number; recSw: number }>();
  for (const e of episodes) {
    const run = data.episodeRun[e] as number;
    let g = byRun.get(run);
    if (!g) byRun.set(run, (g = { n: 0, sw: 0, rec: 0, stay: 0, recStay: 0, recSw: 0 }));
    const end = data.turnStart[e + 1] as number;
    for (let i = data.turnStart[e] as number; i + 1 < end; i++) {
      if ((data.turnSeverity[i] as number) === 0) continue;
      g.n++;
      const switched = data.turnModel[i + 1] !== data.turnModel[i];
      const recovered = (data.turnSeverity[i + 1] as number) === 0;
      if (switched) {
        g.sw++;
        if (recovered) g.recSw++;
      } else {
        g.stay++;
        if (recovered) g.recStay++;
      }
      if (recovered) g.rec++;
    }
  }
  return recoveryOfCounts([...byRun].map(([run, g]) => ({ run: data.runs.get(run) ?? String(run), ...g })));
}

/** Counts of error turns followed by a turn (n), switched (sw), recovered (rec, recStay, recSw), stayed (stay) → shares and Wilson intervals. Shared with the ClickHouse store. */
export type RecoveryCounts = { run: string; n: number; sw: number; rec: number; stay: number; recStay: number; recSw: number };

export function recoveryOfCounts(counts: RecoveryCounts[]): ErrorRecoveryResult {
  const groups: RecoveryGroup[] = counts
    .map((g) => ({
      run: g.run,
      n: g.n,
      p_switch: share(g.sw, g.n),
      p_recover: share(g.rec, g.n),
      p_recover_stay: share(g.recStay, g.stay),
      p_recover_switch: share(g.recSw, g.sw),
      n_stay: g.stay,
      n_switch: g.sw,
      ci: {
        p_switch: wilsonInterval(g.sw, g.n),
        p_recover: wilsonInterval(g.rec, g.n),
        p_recover_stay: wilsonInterval(g.recStay, g.stay),
        p_recover_switch: wilsonInterval(g.recSw, g.sw),
      },
    }))
    .sort((a, b) => a.run.localeCompare(b.run));
  return { groups };
}
