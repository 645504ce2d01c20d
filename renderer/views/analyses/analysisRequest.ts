/**
 * From what the page shows (selected runs, the analysis's controls) to an AnalysisRequest, a stable key for
 * it, and the memo of answers per key: a page re-opened, a control set back, or a trip to an episode and
 * Back shows its figure at once instead of asking the core again.
 */
import { DEFAULT_CALIBRATION_BINS, DEFAULT_EMBEDDING_SAMPLE, SIDE_BY_SIDE_MAX, type AnalysisId, type AnalysisRequest, type AnalysisResponse } from '../../../shared/analysisResults.ts';
import type { AnalysisParams } from '../../store/storeShape.ts';

/** lift's default minimum turns per cell (the analysis's own default). */
export const DEFAULT_MIN_N = 30;

/**
 * The request for an analysis over `runs` (names; empty = every run). An analysis of one episode (targets,
 * plan-dag's DAG view) is asked of that episode's run only; targets without an episode is no request yet.
 */
export function buildRequest(
  id: AnalysisId, runs: readonly string[], params: AnalysisParams, options: { episode?: boolean; draw?: readonly string[] } = {},
): AnalysisRequest | null {
  const wantsEpisode = id === 'targets' || (id === 'plan-dag' && options.episode === true);
  if (wantsEpisode) {
    if (!params.episode) return null;
    return { id, runs: [params.episode.run], episode: params.episode.ext_id };
  }
  const request: AnalysisRequest = { id };
  if (runs.length > 0) request.runs = [...runs].sort();
  // The runs chosen to draw, of those selected (runAnalysis answers its default when none is left).
  const draw = (options.draw ?? []).filter((r) => runs.length === 0 || runs.includes(r));
  if (draw.length > 0 && id !== 'embeddings') request.draw = [...new Set(draw)].sort().slice(0, SIDE_BY_SIDE_MAX);
  if (id === 'lift' && params.minN !== undefined && params.minN !== DEFAULT_MIN_N) request.minN = params.minN;
  if (id === 'pareto' && params.reference !== undefined && (runs.length === 0 || runs.includes(params.reference))) request.reference = params.reference;
  if (id === 'pareto' && params.costAxis === 'log') request.costAxis = 'log';
  if (id === 'usage-ratio' && params.rho && Object.keys(params.rho).length > 0) {
    request.rho = Object.fromEntries(Object.entries(params.rho).sort(([a], [b]) => a.localeCompare(b)));
  }
  if ((id === 'calibration' || id === 'embeddings') && params.estimator !== undefined) request.estimator = params.estimator;
  if (id === 'calibration' && params.bins !== undefined && params.bins !== DEFAULT_CALIBRATION_BINS) request.bins = params.bins;
  if (id === 'embeddings' && params.color !== undefined && params.color !== 'model') request.color = params.color;
  if (id === 'embeddings' && params.sample !== undefined && params.sample !== DEFAULT_EMBEDDING_SAMPLE) request.sample = params.sample;
  return request;
}

/** Equal requests give equal keys (buildRequest already sorts runs and ρ). */
export function requestKey(request: AnalysisRequest): string {
  const { id, runs, draw, minN, reference, costAxis, rho, episode, estimator, bins, color, sample, seed } = request;
  return JSON.stringify([id, runs ?? [], draw ?? [], minN ?? null, reference ?? null, costAxis ?? null, rho ?? null, episode ?? null, estimator ?? null, bins ?? null, color ?? null, sample ?? null, seed ?? null]);
}

/**
 * Answers per request key, most recently used last, at most `capacity`. A failed call is forgotten so the
 * next visit asks again; `clear()` when the database changed (an import).
 */
export class ResponseMemo {
  private readonly entries = new Map<string, Promise<AnalysisResponse>>();
  private readonly settled = new Map<string, AnalysisResponse>();

  constructor(
    private readonly fetch: (request: AnalysisRequest) => Promise<AnalysisResponse>,
    private readonly capacity = 24,
  ) {}

  /** The answer if it is already here (lets a page draw on its first render, no spinner flash). */
  peek(request: AnalysisRequest): AnalysisResponse | undefined {
    return this.settled.get(requestKey(request));
  }

  /** Whether the request was asked and is being answered (asking again costs nothing). */
  asked(request: AnalysisRequest): boolean {
    return this.entries.has(requestKey(request));
  }

  get(request: AnalysisRequest): Promise<AnalysisResponse> {
    const key = requestKey(request);
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit;
    }
    const promise = this.fetch(request).then(
      (response) => {
        if (this.entries.get(key) === promise) this.settled.set(key, response);
        return response;
      },
      (err: unknown) => {
        if (this.entries.get(key) === promise) this.entries.delete(key);
        throw err;
      },
    );
    this.entries.set(key, promise);
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
      this.settled.delete(oldest);
    }
    return promise;
  }

  clear(): void {
    this.entries.clear();
    this.settled.clear();
  }
}
