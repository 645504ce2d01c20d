/**
 * The estimator calls of the API contract (shared/apiEstimator.ts) over one open database: listing the
 * estimators with their cards, background training / scoring jobs (estimatorJobs.ts, a worker thread each),
 * and what-if. Models trained from the window are written beside the database in `estimators/`.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { EstimatorList, EstimatorSummary } from '../../shared/apiEstimator.ts';
import type { Db } from '../db/dbHandle.ts';
import { registerEstimator } from '../estimator/scoreDatabase.ts';
import { estimatorInUse, setEstimatorInUse } from '../estimator/inUse.ts';
import { domainOf } from '../estimator/trainingDomain.ts';
import { EstimatorInputError, EstimatorJobs, type WriteTurns } from '../estimator/estimatorJobs.ts';
import { cardBeside } from '../estimator/modelCard.ts';
import { DEFAULT_ESTIMATOR_PATH, whatIf, WhatIfError } from '../estimator/whatIf.ts';
import { InputError, NotFoundError } from './serviceErrors.ts';
import { writerTurn } from './writerTurn.ts';
import type { RouteLensApi } from '../../shared/api.ts';

type EstimatorApi = Pick<RouteLensApi, 'listEstimators' | 'startEstimatorJob' | 'estimatorJobStatus' | 'cancelEstimatorJob' | 'whatIf' | 'setEstimatorInUse' | 'renameEstimator'>;

export function listEstimators(db: Db): EstimatorList {
  const rows = db
    .prepare(`SELECT e.id, e.name, e.created_at, e.encoder, e.provider, e.scored_at, e.onnx_path,
      (SELECT COUNT(DISTINCT turn_id) FROM estimates s WHERE s.estimator_id = e.id) AS scored_turns
      FROM estimators e ORDER BY e.created_at DESC, e.id DESC`)
    .all() as Omit<EstimatorSummary, 'card' | 'is_default' | 'domain'>[];
  const defaultPath = resolve(DEFAULT_ESTIMATOR_PATH);
  const defaultCard = existsSync(defaultPath) ? cardBeside(defaultPath) : null;
  const inUse = estimatorInUse(db);
  return {
    estimators: rows.map((r) => {
      const card = cardBeside(r.onnx_path);
      return { ...r, card, is_default: r.onnx_path !== null && resolve(r.onnx_path) === defaultPath, domain: domainOf(db, card) };
    }),
    default_model: existsSync(defaultPath) ? { path: defaultPath, card: defaultCard, domain: domainOf(db, defaultCard) } : null,
    turns: db.prepare('SELECT COUNT(*) FROM turns').pluck().get() as number,
    in_use: inUse ? { id: inUse.id, chosen: inUse.chosen } : null,
  };
}

/** `writes` orders score and train jobs with the database's other writers (imports): see writeQueue.ts. */
export function estimatorServices(db: Db, dbPath: string, writes?: WriteTurns): EstimatorApi {
  const jobs = new EstimatorJobs(writes);
  // Writes (registering the default estimator the first time, the estimator in use) go on a writer connection in their turn.
  const write = writerTurn(db, dbPath, writes);
  const register = (modelPath: string, bytes: Uint8Array): Promise<number> =>
    write('estimator registration', (writer) => registerEstimator(writer, modelPath, bytes));
  const job = (n: number) => {
    const s = jobs.status(n);
    if (!s) throw new NotFoundError(`no estimator job ${n}`);
    return s;
  };
  return {
    listEstimators: async () => listEstimators(db),
    setEstimatorInUse: async (input) => {
      if ('estimatorId' in input) {
        if (db.prepare('SELECT 1 FROM estimators WHERE id = ?').get(input.estimatorId) === undefined) throw new NotFoundError(`no estimator with id ${input.estimatorId}`);
        await write('estimator in use', (writer) => (setEstimatorInUse(writer, input.estimatorId), true));
      } else {
        if (!existsSync(DEFAULT_ESTIMATOR_PATH)) throw new InputError('the default model (models/default-estimator.onnx) is not installed');
        const bytes = readFileSync(DEFAULT_ESTIMATOR_PATH);
        await write('estimator in use', (writer) => (setEstimatorInUse(writer, registerEstimator(writer, DEFAULT_ESTIMATOR_PATH, bytes)), true));
      }
      return listEstimators(db);
    },
    renameEstimator: async ({ estimatorId, name }) => {
      if (db.prepare('SELECT 1 FROM estimators WHERE id = ?').get(estimatorId) === undefined) throw new NotFoundError(`no estimator with id ${estimatorId}`);
      await write('estimator rename', (writer) => writer.prepare('UPDATE estimators SET name = ? WHERE id = ?').run(name, estimatorId).changes);
      return listEstimators(db);
    },
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
