/**
 * `routelens analyze ANALYSIS --db FILE|--store URL`: one of the analyses of DESIGN §8, as text or JSON. What only some
 * analyses need (a store's client, ONNX Runtime) is imported when asked for, so the common ones start in a fraction.
 */
import { budgetModesAnalysis, confusionAnalysis, usageRatioAnalysis } from '../analysis/controllerAnalyses.ts';
import { errorRecoveryAnalysis } from '../analysis/errorRecovery.ts';
import { liftAnalysis } from '../analysis/lift.ts';
import { planDagEpisode, planDagSummary } from '../analysis/planDag.ts';
import { paretoAnalysis } from '../analysis/pareto.ts';
import { switchCostAnalysis } from '../analysis/switchCost.ts';
import { usageByTurnAnalysis } from '../analysis/usageByTurn.ts';
import { episodeTargets } from '../analysis/targets.ts';
import { openDatabase } from '../db/database.ts';
import { resolveEpisodeId } from '../services/episodeRef.ts';
import { storeUrlOf } from '../store/storeUrl.ts';
import { ANALYSES, ESTIMATOR_ANALYSIS_OPTIONS, ESTIMATOR_ANALYSIS_USAGE } from './analysisNames.ts';
import { showAnalysis, showTables } from './analysisText.ts';
import { out, requireDb, UsageError, withRuns, type Command } from './common.ts';
import { parseRho } from './rhoFlag.ts';
import { STORE_OPTION } from './storeAccess.ts';

/** `--min-n N` for lift: cells with fewer turns are left out. */
function minNOf(values: Record<string, unknown>): number | undefined {
  const minCount = values['min-n'] === undefined ? undefined : Number(values['min-n']);
  if (minCount !== undefined && !(Number.isInteger(minCount) && minCount >= 1)) throw new UsageError('--min-n must be a whole number ≥ 1');
  return minCount;
}


export const command: Command = {
  usage: `routelens analyze ${ANALYSES.join('|')} --db FILE|--store URL [--run NAME...] [--split NAME[,NAME]] [--episode ID] [--min-n N] [--reference RUN] [--rho MODEL=R,...] [--json]\n` +
    '  --split: only episodes of these splits (train, val, test_id, ood_test, …; the groups id and ood)\n' +
    ESTIMATOR_ANALYSIS_USAGE,
  options: {
    db: { type: 'string' }, ...STORE_OPTION, episode: { type: 'string' }, run: { type: 'string', multiple: true }, split: { type: 'string' },
    'min-n': { type: 'string' }, reference: { type: 'string' }, rho: { type: 'string' }, json: { type: 'boolean' },
    ...ESTIMATOR_ANALYSIS_OPTIONS,
  },
  allowPositionals: true,
  async run(values, positionals) {
    const analysis = positionals[0];
    const runs = (values.run as string[] | undefined) ?? [];
    const split = values.split as string | undefined;
    const store = storeUrlOf(values);
    if (store) {
      const sel = {
        runs, split, reference: values.reference as string | undefined, rho: parseRho(values.rho as string | undefined), episode: values.episode as string | undefined,
        minCount: minNOf(values), flags: values,
      };
      // Loaded only here: the store's client, and the estimator's analyses with ONNX Runtime.
      const { analyzeOnStore } = await import('./analyzeOnStore.ts');
      return analyzeOnStore(store, analysis, sel, values.json === true);
    }
    const db = openDatabase(requireDb(values), { readonly: true });
    try {
      if (analysis === 'targets') {
        if (typeof values.episode !== 'string') throw new UsageError('--episode ID is required for targets');
        if (split !== undefined) throw new UsageError('targets is one episode: --split does not apply');
        if (runs.length > 1) throw new UsageError('targets takes at most one --run');
        const id = resolveEpisodeId(db, { ext_id: values.episode, run: runs[0] });
        return showAnalysis('targets', { episode: values.episode, ...episodeTargets(db, id) }, values.json === true);
      }
      if (analysis === 'lift') {
        const minCount = minNOf(values);
        return showAnalysis('lift', withRuns(() => liftAnalysis(db, { runs, split, minCount })), values.json === true);
      }
      if (analysis === 'error-recovery') {
        return showAnalysis('error-recovery', withRuns(() => errorRecoveryAnalysis(db, { runs, split })), values.json === true);
      }
      if (analysis === 'usage-by-turn') {
        return showAnalysis('usage-by-turn', withRuns(() => usageByTurnAnalysis(db, { runs, split })), values.json === true);
      }
      if (analysis === 'switch-cost') {
        return showAnalysis('switch-cost', withRuns(() => switchCostAnalysis(db, { runs, split })), values.json === true);
      }
      if (analysis === 'pareto') {
        const reference = values.reference as string | undefined;
        return showAnalysis('pareto', withRuns(() => paretoAnalysis(db, { runs, split, reference })), values.json === true);
      }
      if (analysis === 'plan-dag') {
        if (typeof values.episode === 'string') {
          if (runs.length > 1) throw new UsageError('plan-dag --episode takes at most one --run');
          if (split !== undefined) throw new UsageError('plan-dag --episode is one episode: --split does not apply');
          const id = resolveEpisodeId(db, { ext_id: values.episode, run: runs[0] });
          const result = planDagEpisode(db, id, values.episode);
          out(values.json ? JSON.stringify(result) : JSON.stringify(result, null, 2));
          return 0;
        }
        const result = withRuns(() => planDagSummary(db, { runs, split }));
        out(values.json ? JSON.stringify(result) : JSON.stringify(result, null, 2));
        return 0;
      }
      if (analysis === 'budget-modes' || analysis === 'usage-ratio' || analysis === 'confusion') {
        const rho = parseRho(values.rho as string | undefined);
        const result = withRuns(() =>
          analysis === 'budget-modes'
            ? budgetModesAnalysis(db, { runs, split })
            : analysis === 'usage-ratio'
              ? usageRatioAnalysis(db, { runs, split, rho })
              : confusionAnalysis(db, { runs, split }),
        );
        return showTables(result, values.json === true);
      }
      if (analysis === 'calibration' || analysis === 'embeddings') {
        // Loaded only here: ONNX Runtime and the encoders are most of a start's time.
        const { analyzeEstimator } = await import('./analyzeEstimator.ts');
        return await analyzeEstimator(db, analysis, values, runs);
      }
      throw new UsageError(`unknown analysis "${analysis ?? ''}" (available: ${ANALYSES.join(', ')})`);
    } finally {
      db.close();
    }
  },
};
