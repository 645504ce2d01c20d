/**
 * `routelens score --store URL --model FILE.onnx`: ŝ for every turn × candidate model of a ClickHouse store,
 * written to its `estimates` tables, in bounded memory. The sessions are read in parts (storeSessionsPart.ts),
 * each turn's history laid out and hashed as on SQLite (historyRows.ts `hashedHistoryRows`), scored through ONNX
 * Runtime (cuda → webgpu → cpu) and sent to its session's shard.
 *
 * A scoring is an entry of the `scorings` ledger, as an import is one of `imports`: its rows count once its
 * 'completed' event is written, so an interrupted scoring is never read; scoring again adds a newer scoring,
 * whose ŝ wins for the turns it covers (`estimatesOf`). An estimator is known by the sha256 of its ONNX file.
 */
import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { HASH_ENCODER } from '../../../estimator/hashEncoder.ts';
import type { HistoryEncoder } from '../../../estimator/historyEncoder.ts';
import { hashedHistoryRows } from '../../../estimator/historyRows.ts';
import { modelCardPath, readModelCard } from '../../../estimator/modelCard.ts';
import { sha256 } from '../../../estimator/onnxExport.ts';
import type { ProviderChoice, Provider } from '../../../estimator/ortScoring.ts';
import { ScorerError } from '../../../estimator/scorerError.ts';
import { encoderFor, openEstimatorFile, type ScoreDatabaseResult } from '../../../estimator/scoreDatabase.ts';
import { storedExpectedSteps } from '../../../analysis/storedExpectedSteps.ts';
import type { ClickHouseStore } from '../schema/connection.ts';
import { newImportId } from '../import/importToStore.ts';
import { scoringLedgerRow, shardOf, visibleRows } from '../schema/schema.ts';
import { RowBinaryBatch, rowEncoder } from '../import/rowBinary.ts';
import { readSessionsPart, sessionParts } from './storeSessionsPart.ts';

export interface StoreScoreOptions {
  ep?: ProviderChoice;
  /** Only turns of these runs (by name); default every turn. */
  runs?: readonly string[];
  /** Turns per part (default 50,000). */
  partTurns?: number;
  onProgress?: (p: { rows: number; total: number; rowsPerSec: number; provider: Provider }) => void;
  signal?: AbortSignal;
}

/** What a database's scoring reports, with the store's scoring id and the estimator's file hash for its id. */
export interface StoreScoreResult extends Omit<ScoreDatabaseResult, 'estimatorId' | 'ortRowsPerSec'> {
  /** The ledger's id of this scoring. */
  scoringId: number;
  /** The estimator's ONNX file's sha256 (how the store knows it). */
  sha256: string;
}

const ESTIMATE_COLUMNS = ['scoring_id', 'import_id', 'episode_key', 'root_key', 'run', 'pos', 'model', 's_hat'] as const;
const encoders = rowEncoder('estimates', ESTIMATE_COLUMNS);
const BATCH = 4096;

export async function scoreStore(store: ClickHouseStore, modelPath: string, options: StoreScoreOptions = {}): Promise<StoreScoreResult> {
  const { bytes, scorer } = await openEstimatorFile(modelPath, options.ep);
  let encoder: HistoryEncoder | null = null;
  try {
    encoder = await encoderFor(modelPath, scorer.historyDim, options.ep);
    if (encoder.name !== HASH_ENCODER || encoder.profile.name !== 'routelens') {
      throw new ScorerError(
        `${modelPath}: reads ${encoder.spec} histories under the ${encoder.profile.name} profile; a ClickHouse store scores ${HASH_ENCODER} estimators ` +
          'of the routelens profile (the others lay every history out again through the encoder, which is not streamed yet): score it on a SQLite database (--db)',
      );
    }
    const runs = options.runs ?? [];
    const where = [visibleRows(store)];
    const params: Record<string, unknown> = {};
    if (runs.length) {
      const known = new Set((await store.query<{ run: string }>(`SELECT DISTINCT run FROM ${store.table('episodes')} WHERE ${visibleRows(store)}`)).map((r) => r.run));
      const missing = runs.filter((r) => !known.has(r));
      if (missing.length) throw new ScorerError(`no run named ${missing.map((r) => `"${r}"`).join(', ')} (runs: ${[...known].sort().join(', ') || 'none'})`);
      where.push('has({runs:Array(String)}, run)');
      params.runs = runs;
    }
    const [size] = await store.query<{ turns: string }>(`SELECT sum(n_turns) AS turns FROM ${store.table('episodes')} WHERE ${where.join(' AND ')}`, params);
    const total = Number(size?.turns ?? 0);
    const hash = sha256(bytes);
    const card = existsSync(modelCardPath(modelPath)) ? readModelCard(modelCardPath(modelPath)) : null;
    const name = card?.name ?? basename(modelPath).replace(/\.onnx$/i, '');
    const scoringId = newImportId();
    const ledger = (event: 'started' | 'completed' | 'abandoned', rows = 0) =>
      store.insert(store.coordinator, 'scorings', [scoringLedgerRow(scoringId, event, { estimator: hash, name, runs, provider: scorer.provider, rows })]);
    await ledger('started');

    const K = scorer.models.length;
    const D = scorer.historyDim;
    const maxTokens = encoder.historyTokens;
    const parts = await sessionParts(store, { where: where.join(' AND '), params, turns: total, turnsPerPart: options.partTurns ?? 50_000 });
    const started = performance.now();
    let rows = 0;
    let cancelled = false;
    let history = new Float32Array(BATCH * D);
    for (const part of parts) {
      if (cancelled) break;
      const sessions = await readSessionsPart(store, { where: where.join(' AND '), params, part });
      const batches = store.nodes.map(() => new RowBinaryBatch(encoders));
      // Which session and turn each row of the batch is, to address its estimates.
      const rowOf: { s: number; t: number }[] = [];
      const flush = async (): Promise<void> => {
        if (!rowOf.length) return;
        const scores = await scorer.score(history.subarray(0, rowOf.length * D), rowOf.length);
        rowOf.forEach(({ s, t }, r) => {
          const session = sessions[s]!;
          const turn = session.turns[t]!;
          const into = batches[shardOf(Number(session.rootKey), store.nodes.length)]!;
          for (let a = 0; a < K; a++) {
            into.add([scoringId, session.importId, session.key, session.rootKey, session.run, turn.pos, scorer.models[a], scores[r * K + a]]);
          }
        });
        rows += rowOf.length;
        rowOf.length = 0;
        const seconds = (performance.now() - started) / 1000;
        options.onProgress?.({ rows, total, rowsPerSec: seconds > 0 ? rows / seconds : 0, provider: scorer.provider });
      };
      for (let s = 0; s < sessions.length; s++) {
        const { episode, turns } = sessions[s]!;
        // An episode's rows go into one batch (histories are built synchronously): room is made first.
        if (rowOf.length + turns.length > history.length / D) await flush();
        if (turns.length > history.length / D) history = new Float32Array(turns.length * D);
        hashedHistoryRows(episode.task_text, turns, storedExpectedSteps(episode), maxTokens, () => ({ out: history, offset: rowOf.length * D }), (t) => {
          rowOf.push({ s, t });
        });
      }
      await flush();
      for (const [shard, batch] of batches.entries()) {
        await store.insertRowBinary(store.nodes[shard]!, 'estimates_local', ESTIMATE_COLUMNS, batch.take(), `inserting estimates on shard ${shard + 1}`);
      }
      if (options.signal?.aborted) cancelled = true;
    }
    await ledger(cancelled ? 'abandoned' : 'completed', rows);
    const seconds = (performance.now() - started) / 1000;
    return {
      scoringId, estimator: name, sha256: hash, provider: scorer.provider, attempts: scorer.attempts, models: [...scorer.models],
      rows, seconds, rowsPerSec: seconds > 0 ? rows / seconds : 0, cancelled,
    };
  } finally {
    await encoder?.close();
    await scorer.close();
  }
}
