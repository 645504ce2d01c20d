/**
 * The estimators a ClickHouse store knows: those that scored it (`routelens score --store`), each the sha256 of
 * its ONNX file, numbered by its newest completed scoring (the id calibration takes). The one in use is the one
 * that scored last, as on a SQLite database where nobody picked one; a store keeps no choice, no file path and
 * no card, except that the shipped default is recognised by its hash and shows its card.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { EstimatorList, EstimatorSummary } from '../../../../shared/apiEstimator.ts';
import { HASH_ENCODER } from '../../../estimator/hashEncoder.ts';
import { cardBeside } from '../../../estimator/modelCard.ts';
import { sha256 } from '../../../estimator/onnxExport.ts';
import { domainOfCard } from '../../../estimator/trainingDomain.ts';
import { DEFAULT_ESTIMATOR_PATH } from '../../../estimator/whatIf.ts';
import type { ClickHouseStore } from '../schema/connection.ts';
import { visibleRows } from '../schema/schema.ts';

export interface CompletedScoring {
  id: number;
  /** The estimator: its ONNX file's sha256. */
  sha: string;
  name: string;
  provider: string;
  at: string;
  rows: number;
}

/** The store's completed scorings (not abandoned), newest first. */
export async function completedScorings(store: ClickHouseStore): Promise<CompletedScoring[]> {
  const rows = await store.query<{ id: string; sha: string; name: string; provider: string; at: string; rows: string }>(
    `SELECT scoring_id AS id, anyIf(estimator, estimator != '') AS sha, anyIf(name, name != '') AS name, anyIf(provider, provider != '') AS provider,
       toString(max(at)) AS at, max(rows) AS rows FROM ${store.database}.scorings
     GROUP BY scoring_id HAVING countIf(event = 'completed') > 0 AND countIf(event = 'abandoned') = 0 ORDER BY scoring_id DESC`,
  );
  return rows.map((r) => ({ id: Number(r.id), sha: r.sha, name: r.name, provider: r.provider, at: r.at, rows: Number(r.rows) }));
}

/**
 * The scoring an estimator id names (on a store, any completed scoring of it), or the newest when none is asked
 * for; undefined when the store has none. An id that is no completed scoring is the caller's mistake.
 */
export function scoringOf(scorings: readonly CompletedScoring[], wanted: number | undefined): CompletedScoring | undefined {
  if (wanted === undefined) return scorings[0];
  const pick = scorings.find((s) => s.id === wanted);
  if (!pick) throw new RangeError(`no estimator with id ${wanted} (on a store an estimator is numbered by a completed scoring of it: ${scorings.map((s) => s.id).join(', ') || 'none'})`);
  return pick;
}

/** A shipped file's sha256 (how a store knows an estimator), read once per path; null when the file is not there. */
const shas = new Map<string, string | null>();
export function fileSha(path: string): string | null {
  let sha = shas.get(path);
  if (sha === undefined) shas.set(path, (sha = existsSync(path) ? sha256(readFileSync(path)) : null));
  return sha;
}

export async function listEstimatorsOnStore(store: ClickHouseStore): Promise<EstimatorList> {
  const scorings = await completedScorings(store);
  const [turns] = await store.query<{ n: string }>(`SELECT count() AS n FROM ${store.table('turns')} WHERE ${visibleRows(store)}`);
  const estimators: EstimatorSummary[] = [];
  for (const sha of [...new Set(scorings.map((s) => s.sha))]) {
    const mine = scorings.filter((s) => s.sha === sha);
    const newest = mine[0] as CompletedScoring;
    const isDefault = sha === fileSha(DEFAULT_ESTIMATOR_PATH);
    const card = isDefault ? cardBeside(resolve(DEFAULT_ESTIMATOR_PATH)) : null;
    estimators.push({
      id: newest.id, name: newest.name, created_at: (mine[mine.length - 1] as CompletedScoring).at, encoder: HASH_ENCODER, provider: newest.provider || null,
      scored_at: newest.at, scored_turns: Math.max(...mine.map((s) => s.rows)), onnx_path: null, card, is_default: isDefault, domain: domainOfCard(card),
    });
  }
  return { estimators, default_model: null, turns: Number(turns?.n ?? 0), in_use: estimators[0] ? { id: estimators[0].id, chosen: false } : null };
}
