/** `routelens score`: ŝ for every turn × candidate model, in a worker thread (ONNX Runtime: cuda → webgpu → cpu), with turns/s on stderr. */
import { existsSync } from 'node:fs';
import { describeWait, openDatabase, waitForWriteTurn } from '../db/database.ts';
import { runEstimatorTask } from '../estimator/estimatorJobs.ts';
import type { ProviderChoice } from '../estimator/ortScoring.ts';
import { DEFAULT_ESTIMATOR_PATH } from '../estimator/whatIf.ts';
import { storeUrlOf } from '../store/storeUrl.ts';
import { err, print, requireDb, UsageError, type Command } from './common.ts';
import { finish, PROVIDERS } from './estimatorJob.ts';
import { bar, Progress } from './progress.ts';
import { scoreOnStore } from './scoreStore.ts';
import { STORE_OPTION } from './storeAccess.ts';

export const command: Command = {
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
};
