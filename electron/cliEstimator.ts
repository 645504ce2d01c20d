/**
 * The estimator's commands (DESIGN §9): `train`, `score`, `whatif`. Training and scoring run in a worker
 * thread (estimatorJobs.ts) and draw progress on stderr: per epoch the training loss and validation MAE (the
 * loss curve, as numbers), while scoring the provider and turns/s.
 */
import { domainTaskTypesText, extrapolationText } from '../shared/estimatorDomain.ts';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { bar, Progress } from './cliProgress.ts';
import { splitValues } from '../shared/splits.ts';
import { err, intFlag, out, print, requireDb, UsageError, withRuns, type Command } from './cliCommon.ts';
import { visibleText as v } from '../shared/displayText.ts';
import { describeWait, openDatabase, waitForWriteTurn } from './db/database.ts';
import { EstimatorInputError, runEstimatorTask, type JobResult } from './estimator/estimatorJobs.ts';
import { DEFAULT_INPUT_PROFILE, INPUT_PROFILES, isProfileName, type InputProfileName } from './estimator/inputProfile.ts';
import { ScorerError, type ProviderChoice } from './estimator/ortScoring.ts';
import { TRAIN_DEFAULTS } from './estimator/train.ts';
import { openCheckedStore, STORE_OPTION } from './cliStore.ts';
import { storeUrlOf, type ClickHouseStoreUrl } from './store/storeUrl.ts';
import type { StoreScoreResult } from './store/clickhouse/queries/storeScoring.ts';
import { DEFAULT_ESTIMATOR_PATH, whatIf, WhatIfError } from './estimator/whatIf.ts';
import { resolveEpisodeId } from './services/api.ts';
import { registerEstimator } from './estimator/scoreDatabase.ts';
import { setEstimatorInUse } from './estimator/inUse.ts';
import { listEstimators } from './services/estimatorService.ts';

const PROVIDERS = ['auto', 'cpu', 'cuda', 'webgpu'] as const;

async function finish(promise: Promise<JobResult>): Promise<JobResult> {
  try {
    return await promise;
  } catch (e) {
    if (e instanceof EstimatorInputError) throw new UsageError(e.message);
    throw e;
  }
}

/** Scoring a ClickHouse store (storeScoring.ts) in this process, with progress; Ctrl-C abandons the scoring. */
export async function scoreOnStore(
  url: ClickHouseStoreUrl, model: string, options: { ep?: ProviderChoice; runs?: readonly string[] }, quiet = false,
): Promise<StoreScoreResult> {
  const { scoreStore } = await import('./store/clickhouse/queries/storeScoring.ts');
  const store = await openCheckedStore(url);
  const progress = new Progress(process.stderr, quiet && !process.stderr.isTTY);
  const abort = new AbortController();
  const cancel = (): void => abort.abort();
  process.once('SIGINT', cancel);
  try {
    return await scoreStore(store, model, {
      ...options,
      signal: abort.signal,
      onProgress: (p) => progress.update(`scoring on ${p.provider} ${bar(p.total ? p.rows / p.total : 1)} ${p.rows}/${p.total} turns, ${Math.round(p.rowsPerSec)} turns/s`),
    });
  } catch (e) {
    if (e instanceof ScorerError) throw new UsageError(e.message);
    throw e;
  } finally {
    process.off('SIGINT', cancel);
    progress.done();
    await store.close();
  }
}

interface TrainContext {
  store: ClickHouseStoreUrl | null;
  dbPath: string | null;
  /** The folder a store's training spills its parts into (the caller removes it). */
  spillRoot: string | undefined;
  outPath: string;
  truth: string | undefined;
  profile: InputProfileName;
  split: string | undefined;
}

/** `routelens train` once its arguments are checked: the worker, its progress, and what it wrote. */
async function trainCommand(values: Record<string, unknown>, c: TrainContext): Promise<number> {
  const progress = new Progress(process.stderr, values.json === true && !process.stderr.isTTY);
  const task = runEstimatorTask(
    {
      kind: 'train',
      request: {
        ...(c.store
          ? { store: c.store, partTurns: intFlag(values, 'part-turns', 20_000, 100, 10_000_000), spillDir: c.spillRoot }
          : { dbPath: c.dbPath as string }),
        out: c.outPath,
        encoder: values.encoder as string | undefined,
        profile: c.profile,
        runs: values.run as string[] | undefined,
        split: c.split,
        seed: intFlag(values, 'seed', TRAIN_DEFAULTS.seed),
        maxEpochs: intFlag(values, 'epochs', TRAIN_DEFAULTS.maxEpochs, 1, 10_000),
        patience: intFlag(values, 'patience', TRAIN_DEFAULTS.patience, 1, 1000),
        truthPath: c.truth,
        name: values.name as string | undefined,
      },
    },
    (p) => {
      if (p.kind !== 'train') return;
      if (p.phase === 'training' && p.last && p.last.epoch === p.epoch && p.fraction * p.maxEpochs >= p.epoch - 1e-9) {
        const l = p.last;
        progress.done();
        err(`epoch ${String(l.epoch).padStart(3)}  train MSE ${l.trainLoss.toFixed(5)}  val MAE ${l.valMae.toFixed(5)}  best epoch ${l.bestEpoch}  lr ${l.lr.toExponential(2)}  ${l.seconds.toFixed(1)} s`);
        return;
      }
      const label =
        p.phase === 'training' ? `training epoch ${p.epoch}`
        : p.phase === 'dataset' ? `encoding histories (${p.rows} rows${p.parts ? `, part ${Math.min(p.part ?? 0, p.parts - 1) + 1} of ${p.parts} from the store` : ''})`
        : p.phase;
      progress.update(`${label} ${bar(p.fraction)}`);
    },
  );
  // Ctrl-C ends the worker; the command then reports 'cancelled' and its caller removes the spilled parts.
  const interrupted = (): void => task.cancel();
  process.once('SIGINT', interrupted);
  let r: JobResult;
  try {
    r = await finish(task.promise);
  } finally {
    process.off('SIGINT', interrupted);
  }
  progress.done();
  if (r.kind !== 'train') throw new Error('unexpected job result');
  const { card, cardPath, onnxPath, estimatorId } = r.outcome;
  if (values.json) return print({ onnx: onnxPath, card: cardPath, estimator_id: estimatorId, ...card });
  const m = card.metrics;
  err(`wrote ${onnxPath} and ${cardPath}`);
  if (estimatorId === null) err(`  trained from ${card.data.database}; not registered (a store keeps no estimators): give the .onnx to score, replay or whatif with --model`);
  err(`  ${card.profile} inputs, history encoder ${card.encoder.name}`);
  err(`  ${card.data.train_rows} training / ${card.data.validation_rows} validation turns, ${m.epochs} epochs (best ${m.best_epoch}, ${m.stopped === 'early' ? 'stopped early' : 'max epochs'}), ${m.seconds.toFixed(0)} s`);
  err(`  validation MAE ${m.val_mae.toFixed(4)} (constant predictor ${m.baseline_mae?.toFixed(4) ?? 'n/a'}), Spearman ρ ${m.val_spearman?.toFixed(3) ?? 'n/a'}`);
  const q = card.decision_quality;
  if (q) {
    err(`  decision quality on ${q.turns} held-out turns (planted P(progress) of the chosen model):`);
    for (const p of [...q.policies].sort((a, b) => b.value - a.value)) err(`    ${p.policy.padEnd(34)} ${p.value.toFixed(4)}`);
    err(`  best model per category recovered: ${q.categories_recovered} of ${q.best_model_by_category.length}`);
  }
  return 0;
}

export const estimatorCommands: Record<string, Command> = {
  train: {
    summary: 'train the outcome estimator ŝ(h_t, a) and write model.onnx + model.card.json',
    usage:
      `routelens train --db FILE|--store URL --out FILE.onnx [--encoder hash-1024|onnx-text:DIR] [--profile ${INPUT_PROFILES.join('|')}] [--run NAME...] [--split NAME[,NAME]] [--seed S] [--epochs N] [--patience N] ` +
      '[--truth FILE.truth.json] [--name NAME] [--part-turns N] [--spill-dir DIR] [--json]\n' +
      '  --split: train only on episodes of these splits (e.g. train, or the group id); the card records it\n' +
      '  --store: trains from a ClickHouse store in bounded memory: the rows are built --part-turns turns at a time (default 20000)\n' +
      '           and spilled to files in --spill-dir (default the temporary folder), at most 50000 held-out turns are kept;\n' +
      '           hash-1024 encoder and routelens profile; the estimator is not registered anywhere (score it from its .onnx)',
    options: {
      db: { type: 'string' }, ...STORE_OPTION, out: { type: 'string' }, 'part-turns': { type: 'string' }, 'spill-dir': { type: 'string' }, encoder: { type: 'string' }, profile: { type: 'string' }, run: { type: 'string', multiple: true },
      split: { type: 'string' },
      seed: { type: 'string' }, epochs: { type: 'string' }, patience: { type: 'string' }, truth: { type: 'string' },
      name: { type: 'string' }, json: { type: 'boolean' },
    },
    async run(values) {
      const store = storeUrlOf(values);
      const dbPath = store ? null : requireDb(values);
      if (!store && (values['part-turns'] !== undefined || values['spill-dir'] !== undefined)) throw new UsageError('--part-turns and --spill-dir go with --store URL');
      const spillDir = values['spill-dir'] as string | undefined;
      if (spillDir !== undefined && !existsSync(spillDir)) throw new UsageError(`${spillDir}: no such folder`);
      const outPath = values.out;
      if (typeof outPath !== 'string' || !/\.onnx$/i.test(outPath)) throw new UsageError('--out FILE.onnx is required');
      if (!existsSync(dirname(outPath) || '.')) throw new UsageError(`${dirname(outPath)}: no such folder`);
      const truth = values.truth as string | undefined;
      if (truth !== undefined && !existsSync(truth)) throw new UsageError(`${truth}: no such file`);
      const profile = (values.profile as string | undefined) ?? DEFAULT_INPUT_PROFILE;
      if (!isProfileName(profile)) throw new UsageError(`--profile must be one of ${INPUT_PROFILES.join(', ')} (got "${profile}")`);
      const split = values.split as string | undefined;
      if (split !== undefined) withRuns(() => splitValues(split));
      // The parts spilled by a store's training live in a folder this process owns: removed when training ends, fails
      // or is stopped with Ctrl-C (the worker is ended first), never left behind at gigabytes.
      let spillRoot: string | undefined;
      if (store) {
        try {
          spillRoot = mkdtempSync(join(spillDir ?? tmpdir(), 'routelens-train-'));
        } catch (e) {
          throw new UsageError(`${spillDir ?? tmpdir()}: cannot hold the training parts (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
        }
      }
      try {
        return await trainCommand(values, { store, dbPath, spillRoot, outPath, truth, profile, split });
      } finally {
        if (spillRoot) rmSync(spillRoot, { recursive: true, force: true });
      }
    },
  },

  score: {
    summary: 'score every turn × candidate model with an estimator (ONNX Runtime: cuda → webgpu → cpu)',
    usage:
      `routelens score --db FILE|--store URL [--model FILE.onnx] [--ep ${PROVIDERS.join('|')}] [--run NAME...] [--json]\n` +
      '  --store: writes ŝ into the store\'s estimates, its sessions streamed in parts; the scoring counts once it completes',
    options: {
      db: { type: 'string' }, ...STORE_OPTION, model: { type: 'string' }, ep: { type: 'string' }, run: { type: 'string', multiple: true }, json: { type: 'boolean' },
    },
    async run(values) {
      const store = storeUrlOf(values);
      const dbPath = store ? '' : requireDb(values);
      const model = (values.model as string | undefined) ?? DEFAULT_ESTIMATOR_PATH;
      if (!existsSync(model)) throw new UsageError(`${model}: no such file`);
      const ep = (values.ep as string | undefined) ?? 'auto';
      if (!(PROVIDERS as readonly string[]).includes(ep)) throw new UsageError(`--ep must be one of ${PROVIDERS.join(', ')}`);
      const runNames = (values.run as string[] | undefined) ?? [];
      if (store) {
        const s = await scoreOnStore(store, model, { ep: ep as ProviderChoice, runs: runNames }, values.json === true);
        if (values.json) return print(s);
        for (const a of s.attempts) err(`  ${a.provider}: ${a.ok ? 'ok' : `unavailable (${a.error ?? a.stage})`}`);
        err(`scored ${s.rows} turns × ${s.models.length} models with ${s.estimator} (sha256 ${s.sha256.slice(0, 12)}…) on ${s.provider} into the store, ` +
          `scoring ${s.scoringId}: ${Math.round(s.rowsPerSec)} turns/s${s.cancelled ? ' — cancelled: nothing of it is read' : ''}`);
        return s.cancelled ? 1 : 0;
      }
      let runIds: number[] = [];
      if (runNames.length) {
        const db = openDatabase(dbPath, { readonly: true });
        try {
          runIds = runNames.map((name) => {
            const id = db.prepare('SELECT id FROM runs WHERE name = ?').pluck().get(name) as number | undefined;
            if (id === undefined) throw new UsageError(`no run named "${name}"`);
            return id;
          });
        } finally {
          db.close();
        }
      }
      const progress = new Progress(process.stderr, values.json === true && !process.stderr.isTTY);
      // Scoring writes: wait for a running import (or score) to finish first, saying so, instead of
      // failing on SQLite's lock timeout in the middle of the job.
      await waitForWriteTurn(dbPath, { what: 'score', onWait: (w) => err(describeWait(w)) });
      const task = runEstimatorTask({ kind: 'score', dbPath, modelPath: model, ep: ep as ProviderChoice, runIds }, (p) => {
        if (p.kind === 'score') {
          progress.update(`scoring on ${p.provider} ${bar(p.total ? p.rows / p.total : 1)} ${p.rows}/${p.total} turns, ${Math.round(p.rowsPerSec)} turns/s`);
        }
      });
      process.once('SIGINT', () => task.cancel());
      const r = await finish(task.promise);
      progress.done();
      if (r.kind !== 'score') throw new Error('unexpected job result');
      const s = r.result;
      if (values.json) return print(s);
      for (const a of s.attempts) err(`  ${a.provider}: ${a.ok ? 'ok' : `unavailable (${a.error ?? a.stage})`}`);
      err(`scored ${s.rows} turns × ${s.models.length} models with estimator ${s.estimatorId} (${s.estimator}) on ${s.provider}: ` +
        `${Math.round(s.rowsPerSec)} turns/s overall, ${Math.round(s.ortRowsPerSec)} turns/s in ONNX Runtime${s.cancelled ? ' — cancelled, the turns scored so far are kept' : ''}`);
      return s.cancelled ? 1 : 0;
    },
  },

  estimators: {
    summary: 'list the estimators of a database and which one is in use; --use ID makes another the one in use',
    usage: 'routelens estimators --db FILE [--use ID] [--json]',
    options: { db: { type: 'string' }, use: { type: 'string' }, json: { type: 'boolean' } },
    async run(values) {
      const dbPath = requireDb(values);
      if (values.use !== undefined) {
        const id = intFlag(values, 'use', 0, 1);
        await waitForWriteTurn(dbPath, { what: 'estimator in use', onWait: (w) => err(describeWait(w)) });
        const writer = openDatabase(dbPath);
        try {
          if (writer.prepare('SELECT 1 FROM estimators WHERE id = ?').get(id) === undefined) {
            throw new UsageError(`no estimator ${id} in ${dbPath} (routelens estimators --db ${dbPath} lists them)`);
          }
          setEstimatorInUse(writer, id); // the window, serve and every later command read ŝ from it
        } finally {
          writer.close();
        }
      }
      const db = openDatabase(dbPath, { readonly: true });
      try {
        const list = listEstimators(db);
        if (values.json) {
          print({
            in_use: list.in_use,
            estimators: list.estimators.map((e) => ({
              id: e.id, name: e.name, created_at: e.created_at, encoder: e.encoder, scored_turns: e.scored_turns,
              provider: e.provider, is_default: e.is_default, domain: e.domain,
            })),
          });
          return 0;
        }
        if (list.estimators.length === 0) {
          out('no estimator yet: `routelens train` makes one, and the first what-if registers the shipped default');
          return 0;
        }
        for (const e of list.estimators) {
          const mark = list.in_use?.id === e.id ? (list.in_use.chosen ? '* in use' : '* in use (scored last; none picked)') : '';
          const domain = e.domain ? domainTaskTypesText(e.domain) : 'training domain unknown';
          out(`${String(e.id).padStart(4)}  ${v(e.name).padEnd(36)} ${String(e.scored_turns).padStart(8)} turns scored  ${domain}  ${mark}`.trimEnd());
        }
        return 0;
      } finally {
        db.close();
      }
    },
  },

  whatif: {
    summary: 'what if another model had taken this turn: ŝ, Δŝ, cost and nearest logged evidence per candidate',
    usage: 'routelens whatif --db FILE --episode ID --turn T [--run NAME] [--estimator ID] [--k N] [--json]',
    options: {
      db: { type: 'string' }, episode: { type: 'string' }, turn: { type: 'string' }, run: { type: 'string' },
      estimator: { type: 'string' }, k: { type: 'string' }, json: { type: 'boolean' },
    },
    async run(values) {
      const db = openDatabase(requireDb(values), { readonly: true }); // what-if computes ŝ, it stores nothing
      try {
        if (typeof values.episode !== 'string') throw new UsageError('--episode ID is required');
        if (values.turn === undefined) throw new UsageError('--turn T is required');
        const t = intFlag(values, 'turn', 0);
        const id = resolveEpisodeId(db, { ext_id: values.episode, run: values.run as string | undefined });
        const estimatorId = values.estimator === undefined ? undefined : intFlag(values, 'estimator', 0, 1);
        let r;
        try {
          // The first what-if on a database registers the shipped default estimator: that one write goes through
          // a writer connection of its own, in turn, so the read-only connection stays read-only.
          const register = async (modelPath: string, bytes: Uint8Array): Promise<number> => {
            await waitForWriteTurn(requireDb(values), { onWait: (w) => err(describeWait(w)) });
            const writer = openDatabase(requireDb(values));
            try {
              return registerEstimator(writer, modelPath, bytes);
            } finally {
              writer.close();
            }
          };
          r = await whatIf(db, id, t, { estimatorId, k: intFlag(values, 'k', 5, 1, 100), register });
        } catch (e) {
          if (e instanceof WhatIfError) throw new UsageError(e.message);
          throw e;
        }
        if (values.json) {
          return print({
            episode: r.episode,
            turn: r.turn,
            logged_model: r.logged_model,
            task_type: r.task_type,
            provider: r.provider,
            estimator: r.estimator,
            domain: r.domain,
            extrapolation: r.extrapolation,
            source: r.source,
            candidates: r.candidates.map((c) => ({
              model: c.model, s_hat: c.s_hat, delta: c.delta, cost_usd: c.cost_usd,
              neighbours: c.neighbours.map((n) => ({ episode: n.episode, turn: n.turn, outcome: n.outcome, similarity: n.similarity, same_task_type: n.same_task_type })),
            })),
          });
        }
        out(`${v(r.episode)} turn ${r.turn}: logged ${v(r.logged_model)} ($${r.logged_cost_usd.toFixed(5)}); estimator ${v(r.estimator.name)} (${r.source === 'estimates' ? 'stored ŝ' : `computed on ${r.provider}`})`);
        for (const reason of r.extrapolation) out(`extrapolation: ${extrapolationText(reason, { task_type: r.task_type, model: r.logged_model })}`);
        out('model                          ŝ        Δŝ      cost      nearest logged outcomes');
        for (const c of r.candidates) {
          const ns = c.neighbours.map((n) => (n.outcome === null ? '?' : n.outcome.toFixed(2))).join(' ');
          const delta = c.delta === null ? '     n/a' : `${c.delta >= 0 ? '+' : ''}${c.delta.toFixed(4)}`;
          const cost = c.cost_usd === null ? '     n/a' : `$${c.cost_usd.toFixed(5)}`;
          out(`${(v(c.model) + (c.model === r.logged_model ? ' *' : '')).padEnd(28)} ${c.s_hat.toFixed(4)}  ${delta.padStart(8)}  ${cost}  ${ns || (r.sketched_turns ? '' : '(run `routelens score` for neighbours)')}`);
        }
        out('(ŝ is the estimated normalised final score minus future error penalties, S̃; * = the logged model)');
        return 0;
      } finally {
        db.close();
      }
    },
  },
};
