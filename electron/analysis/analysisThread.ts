/**
 * The API's analyses in a worker thread (analysisWorker.ts), so a slow one (lift's bootstrap, a PNG at
 * 300 dpi, a policy replay over 30k episodes: ~35 s) never holds up the calls the window makes meanwhile: in
 * serve mode the Episodes list answered only after the analysis did, and in the desktop app a replay on the
 * main process froze the window. The CLI and tests may still call `runAnalysis` / `replayPolicies` directly.
 *
 * One worker per database, started on the first job and kept while jobs come (its columnar cache is the
 * point: 1.9 s to load at 420k turns, then milliseconds); stopped after `idleMs` without a job, and started
 * again if it crashed. It does not keep the process alive while idle.
 *
 * The worker is the TypeScript source under tsx when RouteLens runs from the repository (CLI, serve, tests),
 * and the bundled `analysisWorker.cjs` beside main.cjs in the desktop build (scripts/build-electron.mjs).
 */
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../startWorker.ts';
import type { AnalysisRequest, AnalysisResponse } from '../../shared/analysisResults.ts';
import type { ModelInfo } from '../../shared/api.ts';
import type { ExportFigureRequest } from '../../shared/apiAnalysis.ts';
import type { FigureFile } from '../export/figureFile.ts';
import type { CompareInput, CompareResult } from '../../shared/apiCompare.ts';
import type { PolicyDiffInput, PolicyDiffResult, ReplayResult } from '../../shared/apiReplay.ts';
import type { ReplayRequest } from '../replay/replayRun.ts';
import { AnalysisInputError, AnalysisNotFoundError } from './runAnalysis.ts';

type ExportInput = Required<Pick<ExportFigureRequest, 'format' | 'theme'>> & Omit<ExportFigureRequest, 'format' | 'theme'>;

type JobBody =
  | { kind: 'analysis'; request: AnalysisRequest }
  | { kind: 'export'; input: ExportInput; models: Pick<ModelInfo, 'name' | 'color_index'>[] }
  | { kind: 'replay'; input: ReplayRequest }
  | { kind: 'policyDiff'; input: PolicyDiffInput }
  | { kind: 'compare'; input: CompareInput };
export type AnalysisJob = JobBody & { seq: number };

export type AnalysisReply =
  | { seq: number; ok: true; kind: 'analysis'; response: AnalysisResponse }
  | { seq: number; ok: true; kind: 'export'; file: { filename: string; mime: string; data: Uint8Array } }
  | { seq: number; ok: true; kind: 'replay'; result: ReplayResult }
  | { seq: number; ok: true; kind: 'policyDiff'; result: PolicyDiffResult }
  | { seq: number; ok: true; kind: 'compare'; result: CompareResult }
  | { seq: number; ok: false; error: 'input' | 'not-found' | 'internal'; message: string; stack?: string };

interface Pending {
  worker: Worker;
  resolve(reply: AnalysisReply & { ok: true }): void;
  reject(err: Error): void;
}

export class AnalysisThread {
  private worker: Worker | null = null;
  private seq = 0;
  private readonly pending = new Map<number, Pending>();
  private idleTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly dbPath: string,
    private readonly idleMs = 5 * 60_000,
  ) {}

  async run(request: AnalysisRequest): Promise<AnalysisResponse> {
    const reply = await this.send({ kind: 'analysis', request });
    if (reply.kind !== 'analysis') throw new Error(`analysis worker answered an analysis with ${reply.kind}`);
    return reply.response;
  }

  async exportFigure(input: ExportInput, models: Pick<ModelInfo, 'name' | 'color_index'>[]): Promise<FigureFile> {
    const reply = await this.send({ kind: 'export', input, models });
    if (reply.kind !== 'export') throw new Error(`analysis worker answered an export with ${reply.kind}`);
    return { filename: reply.file.filename, mime: reply.file.mime, data: Buffer.from(reply.file.data.buffer, reply.file.data.byteOffset, reply.file.data.byteLength) };
  }

  /** A replay's request errors (unknown run, no ŝ for a score-driven policy) reject as AnalysisInputError. */
  async replay(input: ReplayRequest): Promise<ReplayResult> {
    const reply = await this.send({ kind: 'replay', input });
    if (reply.kind !== 'replay') throw new Error(`analysis worker answered a replay with ${reply.kind}`);
    return reply.result;
  }

  async policyDiff(input: PolicyDiffInput): Promise<PolicyDiffResult> {
    const reply = await this.send({ kind: 'policyDiff', input });
    if (reply.kind !== 'policyDiff') throw new Error(`analysis worker answered a policy diff with ${reply.kind}`);
    return reply.result;
  }

  /** A side naming what is not there rejects as AnalysisInputError. */
  async compare(input: CompareInput): Promise<CompareResult> {
    const reply = await this.send({ kind: 'compare', input });
    if (reply.kind !== 'compare') throw new Error(`analysis worker answered a comparison with ${reply.kind}`);
    return reply.result;
  }

  /** Stops the worker now; jobs under way fail. */
  async close(): Promise<void> {
    this.clearIdle();
    const w = this.worker;
    this.worker = null;
    if (!w) return;
    this.failJobsOf(w, new Error('analysis worker stopped'));
    await w.terminate();
  }

  private send(job: JobBody): Promise<AnalysisReply & { ok: true }> {
    const worker = this.theWorker();
    const seq = ++this.seq;
    this.clearIdle();
    return new Promise((resolve, reject) => {
      this.pending.set(seq, { worker, resolve, reject });
      worker.ref();
      const message: AnalysisJob = { ...job, seq };
      worker.postMessage(message);
    });
  }

  private theWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = startWorker('analysisWorker', new URL('./analysisWorker.ts', import.meta.url), { dbPath: this.dbPath });
    worker.on('message', (reply: AnalysisReply) => {
      const p = this.pending.get(reply.seq);
      if (!p) return;
      this.pending.delete(reply.seq);
      this.settled(worker);
      if (reply.ok) p.resolve(reply);
      else if (reply.error === 'input') p.reject(new AnalysisInputError(reply.message));
      else if (reply.error === 'not-found') p.reject(new AnalysisNotFoundError(reply.message));
      else p.reject(Object.assign(new Error(reply.message), { stack: reply.stack ?? reply.message }));
    });
    const fail = (err: Error): void => {
      if (this.worker === worker) this.worker = null;
      this.failJobsOf(worker, err);
    };
    worker.on('error', (e) => fail(e));
    worker.on('exit', (code) => fail(new Error(`analysis worker exited with code ${code}`)));
    this.worker = worker;
    return worker;
  }

  private failJobsOf(worker: Worker, err: Error): void {
    for (const [seq, p] of this.pending) {
      if (p.worker !== worker) continue;
      this.pending.delete(seq);
      p.reject(err);
    }
  }

  /** After a reply: with nothing pending, let the process exit and stop the worker once idle for `idleMs`. */
  private settled(worker: Worker): void {
    if (this.pending.size > 0) return;
    worker.unref();
    this.clearIdle();
    this.idleTimer = setTimeout(() => void this.close(), this.idleMs);
    this.idleTimer.unref();
  }

  private clearIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }
}
