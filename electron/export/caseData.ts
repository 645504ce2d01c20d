/**
 * What a shared case carries (issue 37): the episode (with every turn, and its subagents' episodes), a run (its
 * summary, its sessions listed, the first few in full) or a comparison (its figures and tables), read through the
 * API the window reads, so the file's viewer shows what the app shows. Redacted first, then huge texts cut.
 */
import { basename } from 'node:path';
import { TURN_PAGE, type EpisodeDetail, type RouteLensApi } from '../../shared/api.ts';
import type { AnalysisResponse } from '../../shared/analysisResults.ts';
import type { CompareInput } from '../../shared/apiCompare.ts';
import { CASE_FORMAT, RUN_EPISODES_IN_FULL, type CaseData, type CaseKind } from '../../shared/caseFile.ts';
import { Redactor } from '../../shared/redact.ts';
import { InputError, NotFoundError } from '../services/serviceErrors.ts';
import { cutTexts, type CutCount } from './textCut.ts';

/** The calls a case is read with: the API's own (createApi), or the same services over a database (the CLI). */
export type CaseSource = Pick<RouteLensApi, 'dbInfo' | 'listRuns' | 'listModels' | 'queryEpisodes' | 'getEpisode' | 'getTurns' | 'compare' | 'runAnalysis'>;

export type CaseRequest = { episode: number } | { run: number } | { compare: CompareInput };

/** A session tree deeper or wider than this is not a session any more; the rest is left out. */
const MAX_TREE = 500;
/** The Episodes list's own page limit: a run's case lists at most this many sessions (the footer counts the rest). */
const MAX_ROWS = 5000;

export interface CaseOptions {
  /** Secrets, tokens and home-folder user names become placeholders (the default everywhere). */
  redact: boolean;
  /** The user's own patterns, redacted as well. */
  extra?: RegExp[];
  version: string;
  /** The database's path (only its file name goes into the file). */
  database: string;
  now?: Date;
}

/** An episode with every turn in `turns`, as the viewer answers getEpisode and getTurns from it. */
async function wholeEpisode(source: CaseSource, id: number): Promise<EpisodeDetail> {
  const detail = await source.getEpisode({ id });
  if (!detail.outline) return detail;
  const turns = [];
  for (let from = 0; from < detail.turn_count; from += TURN_PAGE) turns.push(...(await source.getTurns({ id, from, count: TURN_PAGE })).turns);
  return { ...detail, turns, turns_from: 0 };
}

/** The episode and the episodes it launched, theirs too, parents first. */
async function episodeTree(source: CaseSource, id: number, seen: Set<number>): Promise<EpisodeDetail[]> {
  const out: EpisodeDetail[] = [];
  const queue = [id];
  while (queue.length > 0 && seen.size < MAX_TREE) {
    const next = queue.shift() as number;
    if (seen.has(next)) continue;
    seen.add(next);
    const detail = await wholeEpisode(source, next);
    out.push(detail);
    for (const child of detail.children) queue.push(child.id);
  }
  return out;
}

/** Each episode's plan (plan-dag), as the inspector asks for it; an episode the analysis cannot read has none. */
async function plansOf(source: CaseSource, episodes: EpisodeDetail[]): Promise<AnalysisResponse[]> {
  const out: AnalysisResponse[] = [];
  for (const { episode } of episodes) {
    try {
      out.push(await source.runAnalysis({ id: 'plan-dag', runs: [episode.run], episode: episode.ext_id }));
    } catch (e) {
      if (!(e instanceof InputError || e instanceof NotFoundError)) throw e;
    }
  }
  return out;
}

function kindOf(request: CaseRequest): CaseKind {
  return 'episode' in request ? 'episode' : 'run' in request ? 'run' : 'compare';
}

export async function gatherCase(source: CaseSource, request: CaseRequest, options: CaseOptions): Promise<CaseData> {
  const [dbInfo, runs, models] = await Promise.all([source.dbInfo({}), source.listRuns({}), source.listModels({})]);
  const runById = (id: number) => {
    const run = runs.find((r) => r.id === id);
    if (!run) throw new NotFoundError(`no run with id ${id}`);
    return run;
  };
  const seen = new Set<number>();
  let episodes: EpisodeDetail[] = [];
  let rows: CaseData['rows'] = [];
  let compare: CaseData['compare'] = null;
  let title: string;
  let start: number | null = null;
  let caseRuns: typeof runs;
  let sessions = 0;
  if ('episode' in request) {
    episodes = await episodeTree(source, request.episode, seen);
    const main = episodes[0] as EpisodeDetail;
    start = main.episode.id;
    title = `Episode ${main.episode.ext_id} · ${main.episode.run}`;
    caseRuns = runs.filter((r) => episodes.some((e) => e.episode.run_id === r.id));
  } else if ('run' in request) {
    const run = runById(request.run);
    const page = await source.queryEpisodes({ runIds: [run.id], sort: 'id', limit: MAX_ROWS });
    rows = page.rows;
    sessions = page.total;
    for (const row of rows.slice(0, RUN_EPISODES_IN_FULL)) episodes.push(...(await episodeTree(source, row.id, seen)));
    title = `Run ${run.name}`;
    caseRuns = [run];
  } else {
    const input = request.compare;
    const result = await source.compare(input);
    compare = { request: input, result };
    title = `${result.a.label} vs ${result.b.label}`;
    caseRuns = [...new Set([...input.a.runIds, ...input.b.runIds])].map(runById);
  }
  const plans = await plansOf(source, episodes);
  const redactor = new Redactor({ enabled: options.redact, extra: options.extra ?? [] });
  const cut: CutCount = { texts: 0, chars: 0 };
  const carried = cutTexts(
    redactor.value({
      title,
      db_info: { ...dbInfo, path: basename(options.database) },
      runs: caseRuns,
      models,
      episodes,
      rows,
      compare,
      plans,
    }),
    cut,
  );
  const counts: Record<string, number> = {};
  for (const [kind, n] of Object.entries(redactor.counts())) if (n) counts[kind] = n;
  return {
    format: CASE_FORMAT,
    kind: kindOf(request),
    start,
    ...carried,
    about: {
      version: options.version,
      database: redactor.text(basename(options.database)),
      exported_at: (options.now ?? new Date()).toISOString(),
      redaction: { enabled: options.redact, summary: redactor.summary(), counts },
      cut,
      episodes_left_out: Math.max(0, sessions - RUN_EPISODES_IN_FULL),
    },
  };
}

