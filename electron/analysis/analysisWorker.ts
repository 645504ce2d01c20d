/**
 * Worker-thread entry for the API's analyses (DESIGN §1: heavy work off the thread that answers every other
 * call). It opens its own read-only connection to the database, so it keeps its own columnar cache, which
 * columnar.ts reloads when another connection commits an import. Jobs arrive one message each and are
 * answered by `seq`, in order: an analysis (`runAnalysis`), a figure file (`figureFile`: laying out and
 * rasterising a PNG or PDF takes as long as the analysis), a policy replay or diff (electron/replay/), or a
 * comparison of two sides (electron/compare/; its per-run cache lives here too).
 *
 * Errors go back with their kind, so the API answers an unknown run as the caller's mistake, as before.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { modelColorFrom } from '../../shared/charts/context.ts';
import { compare, CompareError } from '../compare/compare.ts';
import { openDatabase } from '../db/database.ts';
import { figureFile } from '../export/figureFile.ts';
import { FigureTooLargeError } from '../export/figureLimits.ts';
import type { AnalysisJob, AnalysisReply } from './analysisThread.ts';
import { AnalysisInputError, AnalysisNotFoundError, runAnalysis } from './runAnalysis.ts';
import { policyDiff } from '../replay/policyDiff.ts';
import { ReplayError } from '../replay/replayData.ts';
import { replayPolicies } from '../replay/replayRun.ts';

const port = parentPort;
if (!port) throw new Error('analysisWorker.ts runs only as a worker thread');
const db = openDatabase((workerData as { dbPath: string }).dbPath, { readonly: true });

async function answer(job: AnalysisJob): Promise<AnalysisReply> {
  try {
    if (job.kind === 'analysis') return { seq: job.seq, ok: true, kind: 'analysis', response: await runAnalysis(db, job.request) };
    if (job.kind === 'replay') return { seq: job.seq, ok: true, kind: 'replay', result: replayPolicies(db, job.input) };
    if (job.kind === 'policyDiff') return { seq: job.seq, ok: true, kind: 'policyDiff', result: policyDiff(db, job.input) };
    if (job.kind === 'compare') return { seq: job.seq, ok: true, kind: 'compare', result: compare(db, job.input) };
    const response = await runAnalysis(db, job.input.request);
    const file = await figureFile(response, { ...job.input, modelColor: modelColorFrom(job.models) });
    return { seq: job.seq, ok: true, kind: 'export', file: { filename: file.filename, mime: file.mime, data: new Uint8Array(file.data) } };
  } catch (e) {
    const kind = e instanceof AnalysisInputError || e instanceof ReplayError || e instanceof CompareError || e instanceof FigureTooLargeError ? 'input' : e instanceof AnalysisNotFoundError ? 'not-found' : 'internal';
    return { seq: job.seq, ok: false, error: kind, message: e instanceof Error ? e.message : String(e), stack: e instanceof Error ? e.stack : undefined };
  }
}

// One job at a time, in arrival order: they share the cache and two cores.
let queue: Promise<void> = Promise.resolve();
port.on('message', (job: AnalysisJob) => {
  queue = queue.then(async () => {
    const reply = await answer(job);
    if (reply.ok && reply.kind === 'export') port.postMessage(reply, [reply.file.data.buffer as ArrayBuffer]);
    else port.postMessage(reply);
  });
});
