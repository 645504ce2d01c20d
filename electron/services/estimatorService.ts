/**
 * The estimator calls of the API contract (shared/apiEstimator.ts) over one open database: listing the
 * estimators with their cards, background training / scoring jobs (estimatorJobs.ts, a worker thread each),
 * and what-if. Models trained from the window are written beside the database in `estimators/`.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { EstimatorList, EstimatorSummary } from '../../shared/apiEstimator.ts';
import { openDatabase, type Db } from '../db/database.ts';
import { registerEstimator } from '../estimator/scoreDatabase.ts';
import { EstimatorInputError, EstimatorJobs, type WriteTurns } from '../estimator/estimatorJobs.ts';
import { modelCardPath, readModelCard, type ModelCard } from '../estimator/modelCard.ts';
import { DEFAULT_ESTIMATOR_PATH, whatIf, WhatIfError } from '../estimator/whatIf.ts';
import { InputError, NotFoundError } from './dispatch.ts';
import type { RouteLensApi } from '../../shared/api.ts';

type EstimatorApi = Pick<RouteLensApi, 'listEstimators' | 'startEstimatorJob' | 'estimatorJobStatus' | 'cancelEstimatorJob' | 'whatIf'>;

function cardOf(onnxPath: string | null): ModelCard | null {
  if (!onnxPath) return null;
  const path = modelCardPath(onnxPath);
  if (!existsSync(path)) return null;
  try {
    return readModelCard(path);
  } catch {
    return null; // an unreadable card hides the card, not the estimator
  }
}

export function listEstimators(db: Db): EstimatorList {
  const rows = db
    .prepare(`SELECT e.id, e.name, e.created_at, e.encoder, e.provider, e.scored_at, e.onnx_path,
      (SELECT COUNT(DISTINCT turn_id) FROM estimates s WHERE s.estimator_id = e.id) AS scored_turns
      FROM estimators e ORDER BY e.created_at DESC, e.id DESC`)
    .all() as Omit<EstimatorSummary, 'card' | 'is_default'>[];
  const defaultPath = resolve(DEFAULT_ESTIMATOR_PATH);
  return {
    estimators: rows.map((r) => ({ ...r, card: cardOf(r.onnx_path), is_default: r.onnx_path !== null && resolve(r.onnx_path) === defaultPath })),
    default_model: existsSync(defaultPath) ? { path: defaultPath, card: cardOf(defaultPath) } : null,
    turns: db.prepare('SELECT COUNT(*) FROM turns').pluck().get() as number,
  };
}

/** `writes` orders score and train jobs with the database's other writers (imports): see writeQueue.ts. */
export function estimatorServices(db: Db, dbPath: string, writes?: WriteTurns): EstimatorApi {
  const jobs = new EstimatorJobs(writes);
  const memory = db.memory || dbPath === '' || dbPath === ':memory:';
  // What-if registers the default estimator the first time: a write, so on a writer connection in its turn.
  const register = async (modelPath: string, bytes: Uint8Array): Promise<number> => {
    const write = (): number => {
      if (memory) return registerEstimator(db, modelPath, bytes);
      const writer = openDatabase(dbPath);
      try {
        return registerEstimator(writer, modelPath, bytes);
      } finally {
        writer.close();
      }
    };
    if (!writes) return write();
    const id = await writes.run('estimator registration', async () => write(), () => {}, { cancelled: false });
    if (id === undefined) throw new Error('estimator registration was skipped');
    return id;
  };
  const job = (n: number) => {
    const s = jobs.status(n);
    if (!s) throw new NotFoundError(`no estimator job ${n}`);
    return s;
  };
  return {
    listEstimators: async () => listEstimators(db),
    startEstimatorJob: async (input) => {
      try {
        if (input.kind === 'train') {
          const folder = join(dirname(resolve(dbPath)), 'estimators');
          mkdirSync(folder, { recursive: true });
          const stamp = new Date().toISOString().replace(/[:.]/g, '-');
          const name = input.name ?? `estimator-${stamp}`;
          return jobs.start({
            kind: 'train',
            request: { dbPath, out: join(folder, `${name}.onnx`), runs: input.runs, seed: input.seed, maxEpochs: input.maxEpochs, patience: input.patience, profile: input.profile, name },
          });
        }
        let modelPath = DEFAULT_ESTIMATOR_PATH;
        if (input.estimatorId !== undefined) {
          const path = db.prepare('SELECT onnx_path FROM estimators WHERE id = ?').pluck().get(input.estimatorId) as string | null | undefined;
          if (path === undefined) throw new NotFoundError(`no estimator with id ${input.estimatorId}`);
          if (!path || !existsSync(path)) throw new InputError(`estimator ${input.estimatorId}'s ONNX file is missing (${path ?? 'no path'})`);
          modelPath = path;
        }
        return jobs.start({ kind: 'score', dbPath, modelPath, ep: input.ep, runIds: input.runIds });
      } catch (e) {
        if (e instanceof EstimatorInputError) throw new InputError(e.message);
        throw e;
      }
    },
    estimatorJobStatus: async ({ job: n }) => job(n),
    cancelEstimatorJob: async ({ job: n }) => {
      job(n);
      return jobs.cancel(n) ?? job(n);
    },
    whatIf: async (input) => {
      try {
        return await whatIf(db, input.episodeId, input.turn, { estimatorId: input.estimatorId, k: input.k, register });
      } catch (e) {
        if (e instanceof WhatIfError) throw new InputError(e.message);
        throw e;
      }
    },
  };
}
