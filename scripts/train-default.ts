/**
 * `npm run train:default`: rebuilds models/default-estimator.onnx (+ .card.json), the estimator the app uses
 * for what-if before a user trains their own. Deterministic: simulated ScienceWorld (fixed seed), imported into
 * a temporary database, trained with a fixed seed, evaluated against the simulator's planted truth.
 *
 * Training rows come from the runs whose router is stochastic (the learned softmax router, the uniform one and
 * the error-triggered switcher): in the fixed-model runs the model of turn t is also the model of every later
 * turn, so their targets mostly say which model the whole episode was on, not what choosing it at t is worth.
 * The history budget is 512 tokens: the recent turns carry what the next turn needs (the simulator cues the next
 * tool in the last observation), and a short window keeps the estimator from memorising task texts.
 *
 * Size: 60,000 episodes give ~557k training rows, the scale of the paper's offline set (515k turns). It matters:
 * one turn's model moves an episode's outcome by a few hundredths (of a score that varies by ±0.35 across
 * episodes), so the per-category effects are only estimable from many turns. At 20,000 episodes the estimator
 * still beat every single model but rated GPT-5 best in the two categories where MiniMax and GPT-OSS are
 * planted best; at 60,000 it recovers all six. The whole script takes ~8 minutes on 2 cores (training ~7).
 *
 * Options: --episodes N (default 60000), --epochs N (default 8, also the cosine schedule's length), --out FILE.onnx.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { simulateToFile } from '../fixtures/simulator/index.ts';
import { openDatabase } from '../electron/db/database.ts';
import { importPaths } from '../electron/importers/pipeline.ts';
import { trainToFile } from '../electron/estimator/trainPipeline.ts';

const { values } = parseArgs({ options: { episodes: { type: 'string' }, epochs: { type: 'string' }, out: { type: 'string' } } });
const out = values.out ?? fileURLToPath(new URL('../models/default-estimator.onnx', import.meta.url));
const episodes = Number(values.episodes ?? 60000);
const epochs = Number(values.epochs ?? 8);
const SEED = 21;
const RUNS = ['sw-mtrouter', 'sw-random', 'sw-switch-on-error'];

const dir = mkdtempSync(join(tmpdir(), 'routelens-default-estimator-'));
try {
  const jsonl = join(dir, 'scienceworld.jsonl');
  const started = Date.now();
  const { truthPath } = await simulateToFile({ preset: 'scienceworld', episodes, seed: SEED, out: jsonl });
  const dbPath = join(dir, 'train.db');
  const db = openDatabase(dbPath);
  await importPaths(db, [jsonl]);
  db.close();
  console.error(`simulated and imported ${episodes} episodes in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  const r = await trainToFile(
    {
      dbPath, out, truthPath, runs: RUNS, seed: 1, maxEpochs: epochs, maxHistoryTokens: 512, name: 'default-estimator',
      simulated: { preset: 'scienceworld', seed: SEED, episodes },
    },
    (p) => {
      if (p.phase === 'training' && p.last && Math.abs(p.fraction * p.maxEpochs - p.epoch) < 1e-9) {
        console.error(`epoch ${p.epoch}: train MSE ${p.last.trainLoss.toFixed(5)}, val MAE ${p.last.valMae.toFixed(5)} (${p.last.seconds.toFixed(0)} s)`);
      }
    },
  );
  const m = r.card.metrics;
  console.error(`wrote ${r.onnxPath}: val MAE ${m.val_mae.toFixed(4)} (constant ${m.baseline_mae?.toFixed(4)}), ρ ${m.val_spearman?.toFixed(3)}`);
  const q = r.card.decision_quality;
  if (q) for (const p of q.policies) console.error(`  ${p.policy.padEnd(32)} ${p.value.toFixed(4)}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
