/** `routelens analyze … --store URL`: every analysis of DESIGN §8 answered by SQL on a ClickHouse store. */
import { showAnalysis, showTables } from './analysisText.ts';
import { calibrationFlags, embeddingsFlags, estimatorFlag, showCalibration, showEmbeddings } from './analyzeEstimator.ts';
import { UsageError } from './common.ts';
import type { ClickHouseStoreUrl } from '../store/storeUrl.ts';
import { withStore } from './storeAccess.ts';

/** Analyses answered by SQL on the store: every one of DESIGN §8. */
export const PUSHED_DOWN = ['pareto', 'switch-cost', 'error-recovery', 'usage-by-turn', 'budget-modes', 'usage-ratio', 'confusion', 'targets', 'lift', 'plan-dag', 'calibration', 'embeddings'] as const;

export async function analyzeOnStore(
  url: ClickHouseStoreUrl,
  analysis: string | undefined,
  sel: {
    runs: string[]; split?: string; reference?: string; rho?: Record<string, number>; episode?: string; minCount?: number;
    /** calibration, embeddings: their flags as given (checked as with --db; the store numbers an estimator by its scorings). */
    flags?: Record<string, unknown>;
  },
  json: boolean,
): Promise<number> {
  if (!(PUSHED_DOWN as readonly string[]).includes(analysis ?? '')) {
    throw new UsageError(`unknown analysis "${analysis ?? ''}" (available: ${PUSHED_DOWN.join(', ')})`);
  }
  // Flags are checked before connecting, as every other mistake in the command line is.
  const flags = sel.flags ?? {};
  const calibration = analysis === 'calibration' ? calibrationFlags(flags) : undefined;
  const embeddings = analysis === 'embeddings' ? { runs: sel.runs, estimator: estimatorFlag(flags), ...embeddingsFlags(flags) } : undefined;
  return withStore(url, async (store) => {
    const { requireSchema } = await import('../store/clickhouse/schema/schema.ts');
    await requireSchema(store);
    try {
      if (analysis === 'calibration') {
        const { calibrationOnStore } = await import('../store/clickhouse/queries/storeCalibration.ts');
        return showCalibration(await calibrationOnStore(store, { ...sel, ...calibration }), json);
      }
      if (analysis === 'embeddings') {
        const { embeddingsOnStore } = await import('../store/clickhouse/queries/storeEmbeddings.ts');
        return showEmbeddings(await embeddingsOnStore(store, embeddings), json);
      }
      const m = await import('../store/clickhouse/queries/storeAnalyses.ts');
      switch (analysis) {
        case 'pareto':
          return showAnalysis('pareto', await m.paretoOnStore(store, sel), json);
        case 'switch-cost':
          return showAnalysis('switch-cost', await m.switchCostOnStore(store, sel), json);
        case 'error-recovery':
          return showAnalysis('error-recovery', await m.errorRecoveryOnStore(store, sel), json);
        case 'budget-modes':
          return showTables(await m.budgetModesOnStore(store, sel), json);
        case 'usage-ratio':
          return showTables(await m.usageRatioOnStore(store, sel), json);
        case 'confusion':
          return showTables(await m.confusionOnStore(store, sel), json);
        case 'lift':
          return showAnalysis('lift', await m.liftOnStore(store, sel), json);
        case 'plan-dag': {
          if (sel.episode === undefined) return showTables(await m.planDagSummaryOnStore(store, sel), json);
          if (sel.runs.length > 1) throw new UsageError('plan-dag --episode takes at most one --run');
          if (sel.split !== undefined) throw new UsageError('plan-dag --episode is one episode: --split does not apply');
          const { run: _run, ...result } = await m.planDagEpisodeOnStore(store, sel.episode, sel.runs[0]);
          return showTables(result, json);
        }
        case 'targets': {
          if (sel.episode === undefined) throw new UsageError('--episode ID is required for targets');
          if (sel.split !== undefined) throw new UsageError('targets is one episode: --split does not apply');
          if (sel.runs.length > 1) throw new UsageError('targets takes at most one --run');
          return showAnalysis('targets', await m.targetsOnStore(store, sel.episode, sel.runs[0]), json);
        }
        default:
          return showAnalysis('usage-by-turn', await m.usageByTurnOnStore(store, sel), json);
      }
    } catch (e) {
      if (e instanceof RangeError) throw new UsageError(e.message);
      throw e;
    }
  });
}
