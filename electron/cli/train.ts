/**
 * `routelens train` (DESIGN §9): the estimator is trained in a worker thread (estimatorJobs.ts) that draws
 * progress on stderr: per epoch the training loss and validation MAE (the loss curve, as numbers).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { splitValues } from '../../shared/splits.ts';
import { runEstimatorTask, type JobResult } from '../estimator/estimatorJobs.ts';
import { DEFAULT_INPUT_PROFILE, INPUT_PROFILES, isProfileName, type InputProfileName } from '../estimator/inputProfile.ts';
import { TRAIN_DEFAULTS } from '../estimator/train.ts';
import { storeUrlOf, type ClickHouseStoreUrl } from '../store/storeUrl.ts';
import { err, intFlag, print, requireDb, UsageError, withRuns, type Command } from './common.ts';
import { finish } from './estimatorJob.ts';
import { bar, Progress } from './progress.ts';
import { STORE_OPTION } from './storeAccess.ts';

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

export const command: Command = {
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
};
