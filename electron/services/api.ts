/**
 * The services behind the API contract, over one open database. Plain functions of their input: the
 * transports (IPC, HTTP, CLI, tests) reach them through dispatch.ts, which validates first.
 */
import {
  EpisodeQuery,
  TURN_PAGE,
  type EpisodeDetail,
  type RouteLensApi,
  type TurnErrorInfo,
} from '../../shared/api.ts';
import { aecTargets, severityFromLevel } from '../../shared/formulas.ts';
import { storedExpectedSteps } from '../analysis/storedExpectedSteps.ts';
import { costBefore, outlineOf, pageStart, type OutlineLine } from './episodePages.ts';
import { episodeTargets } from '../analysis/targets.ts';
import { messageDetails, turnDetails, turnErrorInfo } from './turnDetails.ts';
import { existsSync } from 'node:fs';
import { openDatabase, SchemaError, schemaVersion } from '../db/database.ts';
import type { Db } from '../db/dbHandle.ts';
import { episodeRowById, listRuns, queryEpisodes } from '../db/episodeQueries.ts';
import { listModels } from '../db/models.ts';
import {
  candidatesOfEpisode, childrenOfEpisode, episodeMeta, errorsOfEpisode, finalMessagesOfEpisode, messagesOfEpisode, messagesOfSpan,
  turnLinesOfEpisode, turnsOfEpisode,
} from '../db/turnQueries.ts';
import { storedOutcome } from '../db/storedOutcome.ts';
import { resolveEpisodeId } from './episodeRef.ts';
import { InputError, NotFoundError } from './serviceErrors.ts';
import { estimatorServices } from './estimatorService.ts';
import { ImportJobs, UploadPathError } from './importJobs.ts';
import { compareServices } from './compareService.ts';
import { replayServices } from './replayService.ts';
import { analysisServices, analysisThreadFor } from './analysisService.ts';
import { WriteQueue } from './writeQueue.ts';
import { caseServices } from './caseService.ts';
import { liveServices } from '../live/liveServices.ts';
import { alertServices } from './alertService.ts';

/** `linesOf`: how a long episode's lines are read (createApi keeps the last episode's, so its pages cost no re-read). */
export function episodeDetail(db: Db, episodeId: number, around?: number, linesOf: (id: number) => EpisodeLines = (id) => episodeLines(db, id)): EpisodeDetail {
  const row = episodeRowById(db, episodeId);
  const meta = episodeMeta(db, episodeId);
  if (!row || !meta) throw new NotFoundError(`no episode with id ${episodeId}`);
  const count = db.prepare('SELECT COUNT(*) FROM turns WHERE episode_id = ?').pluck().get(episodeId) as number;
  let turns: EpisodeDetail['turns'];
  let final: EpisodeDetail['final_messages'];
  let outline: EpisodeDetail['outline'] = null;
  let from = 0;
  if (count <= TURN_PAGE) {
    ({ turns, final } = wholeTurns(db, episodeId));
  } else {
    const lines = linesOf(episodeId);
    outline = outlineOf(lines.lines);
    from = pageStart(count, around);
    turns = turnsPage(db, episodeId, lines, from, TURN_PAGE);
    final = messageDetails(finalMessagesOfEpisode(db, episodeId)).final;
  }
  return {
    episode: {
      ...row,
      task_id: meta.task_id,
      task_type: meta.task_type,
      split: meta.split,
      task_text: meta.task_text,
      expected_steps: meta.expected_steps ?? 0,
      budget_usd: meta.budget_usd,
      max_turns: meta.max_turns,
      policy_name: meta.policy_name,
      kind: meta.kind,
      agent: meta.agent,
      started_at: meta.started_at,
      system_prompt: meta.system_prompt,
      unpriced_turns: meta.unpriced_turns,
      parent: meta.parent_ext_id === null ? null : { id: meta.parent_id, ext_id: meta.parent_ext_id, t: meta.parent_t },
      outcome: storedOutcome(meta.outcome),
    },
    turns,
    turn_count: count,
    turns_from: from,
    outline,
    final_messages: final,
    children: childrenOfEpisode(db, meta.run_id, row.ext_id).map((c) => ({
      id: c.id,
      ext_id: c.ext_id,
      kind: c.kind,
      parent_t: c.parent_t,
      n_turns: c.n_turns,
      total_cost: c.unpriced_turns > 0 ? null : c.total_cost,
      models: c.models ? (JSON.parse(c.models) as string[]) : [],
    })),
  };
}

/** Every turn of an episode in full and the messages after the last: how a short episode is read (and a test's truth). */
export function wholeTurns(db: Db, episodeId: number): { turns: EpisodeDetail['turns']; final: EpisodeDetail['final_messages'] } {
  const messages = messageDetails(messagesOfEpisode(db, episodeId));
  const turns = turnDetails(
    turnsOfEpisode(db, episodeId), errorsOfEpisode(db, episodeId), candidatesOfEpisode(db, episodeId), episodeTargets(db, episodeId).turns,
    messages.inputs,
  );
  return { turns, final: messages.final };
}

export interface EpisodeLines {
  lines: OutlineLine[];
  /** AEC targets of every turn (they depend on the turns after each one), by index. */
  targets: { s_tilde: number | null; penalty: number | null }[];
}

/** Every turn of a long episode, light (no text), with its errors and targets: the outline and the pages read these. */
function episodeLines(db: Db, episodeId: number): EpisodeLines {
  const meta = episodeMeta(db, episodeId);
  if (!meta) throw new NotFoundError(`no episode with id ${episodeId}`);
  const rows = turnLinesOfEpisode(db, episodeId);
  const names = new Map(db.prepare('SELECT id, name FROM models WHERE id IN (SELECT DISTINCT model_id FROM turns WHERE episode_id = ?)').raw().all(episodeId) as [number, string][]);
  const errorsOf = new Map<number, TurnErrorInfo[]>();
  for (const e of errorsOfEpisode(db, episodeId)) {
    const list = errorsOf.get(e.turn_id) ?? (errorsOf.set(e.turn_id, []).get(e.turn_id) as TurnErrorInfo[]);
    list.push(turnErrorInfo(e));
  }
  const lines = rows.map((r) => ({
    t: r.t,
    model: names.get(r.model_id) ?? String(r.model_id),
    cost: r.cost_source === 'none' ? null : r.cost,
    cost_source: r.cost_source,
    switched: r.switched === 1,
    errors: errorsOf.get(r.id) ?? [],
    max_severity: severityFromLevel(r.max_severity),
  }));
  const targets = aecTargets(meta.score_norm, lines.map((l) => l.max_severity), storedExpectedSteps(meta));
  return { lines, targets };
}

/** Turns from…from+count-1 of a long episode in full. */
function turnsPage(db: Db, episodeId: number, all: EpisodeLines, from: number, count: number): EpisodeDetail['turns'] {
  const page = all.lines.slice(from, from + count);
  const first = page[0];
  const last = page[page.length - 1];
  if (!first || !last) return [];
  const span = { first: first.t, last: last.t };
  return turnDetails(
    turnsOfEpisode(db, episodeId, span), errorsOfEpisode(db, episodeId, span), candidatesOfEpisode(db, episodeId, span),
    all.targets.slice(from, from + count).map((x) => ({ s_tilde: x?.s_tilde ?? null, penalty: x?.penalty ?? 0 })),
    messageDetails(messagesOfSpan(db, episodeId, span)).inputs,
    costBefore(all.lines, from),
  );
}

/** `getTurns`: a page of any episode (a short one's turns are read whole, as getEpisode gives them). */
export function episodeTurns(
  db: Db, episodeId: number, from: number, count: number, linesOf: (id: number) => EpisodeLines = (id) => episodeLines(db, id),
): { from: number; turns: EpisodeDetail['turns'] } {
  // linesOf says when there is no such episode (NotFoundError).
  return { from, turns: turnsPage(db, episodeId, linesOf(episodeId), from, count) };
}

/**
 * The lines of the last long episode read, while the database holds what it held: reading a million turns' lines took
 * 4.7 s, which every page of that episode paid again.
 */
function lastEpisodeLines(db: Db, version: () => number): (id: number) => EpisodeLines {
  let last: { id: number; version: number; lines: EpisodeLines } | null = null;
  return (id) => {
    const now = version();
    if (last?.id !== id || last.version !== now) last = { id, version: now, lines: episodeLines(db, id) };
    return last.lines;
  };
}

/**
 * The connection `serve` and the window read through (issue 16): read-only, so it never writes, never
 * waits for a writer (WAL: each statement reads the last committed state) and never sees another
 * connection's uncommitted rows. A path that does not exist yet becomes a new RouteLens database, and an
 * older RouteLens database is migrated once, on a writer connection closed right after; anything else the
 * read-only open refuses is refused here too.
 */
export function openApiDatabase(path: string): Db {
  if (!existsSync(path)) openDatabase(path).close();
  try {
    return openDatabase(path, { readonly: true });
  } catch (err) {
    if (!(err instanceof SchemaError && /migrate/.test(err.message))) throw err;
  }
  openDatabase(path).close();
  return openDatabase(path, { readonly: true });
}

/**
 * A number that moves whenever a write commits, whoever made it: `PRAGMA data_version` moves on commits by
 * other connections (imports and estimator jobs write on their own), `total_changes()` on this one's.
 */
export function dataVersionOf(db: Db): () => number {
  let stamp = '';
  let version = 0;
  return () => {
    const now = `${db.pragma('data_version', { simple: true }) as number}:${db.prepare('SELECT total_changes()').pluck().get() as number}`;
    if (now !== stamp) {
      stamp = now;
      version++;
    }
    return version;
  };
}

/**
 * The API over `db`, the connection it reads from (read-only in serve and the window: openApiDatabase).
 * Writes never use it: import jobs open their own connection, estimator jobs write from a worker, and all
 * of them take turns in one WriteQueue for `path`.
 */
export function createApi(db: Db, path = db.name, options: { writes?: WriteQueue } = {}): RouteLensApi {
  const memory = db.memory || path === '' || path === ':memory:';
  // `serve` passes its queue: the folder follower it starts writes in the same turns.
  const writes = options.writes ?? new WriteQueue(memory ? null : path);
  const jobs = new ImportJobs(db, path, writes);
  const thread = analysisThreadFor(db, path);
  const count = (table: string): number => db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get() as number;
  const dataVersion = dataVersionOf(db);
  const linesOf = lastEpisodeLines(db, dataVersion);
  const api: Omit<RouteLensApi, 'shareCase'> = {
    dbInfo: async () => {
      // One read transaction, so the counts and the version describe the same committed state.
      const read = db.transaction(() => ({
        path,
        runs: count('runs'),
        episodes: count('episodes'),
        turns: count('turns'),
        schema_version: schemaVersion(db),
        data_version: dataVersion(),
      }));
      return read();
    },
    listRuns: async () => listRuns(db),
    listModels: async () => listModels(db),
    queryEpisodes: async (input) => queryEpisodes(db, EpisodeQuery.parse(input)),
    getEpisode: async (input) => episodeDetail(db, resolveEpisodeId(db, input), input.around, linesOf),
    getTurns: async (input) => episodeTurns(db, input.id, input.from, input.count, linesOf),
    startImport: async (input) => {
      try {
        return jobs.start(input.files, input.run);
      } catch (err) {
        if (err instanceof UploadPathError) throw new InputError(err.message);
        throw err;
      }
    },
    importStatus: async (input) => jobs.status(input.job),
    ...compareServices(db, thread),
    ...replayServices(db, thread),
    ...analysisServices(db, thread),
    ...estimatorServices(db, path, writes),
    ...liveServices(db, path, writes),
    ...alertServices(db, path, writes),
  };
  // A shared case is read through the calls above, as the window reads it.
  return { ...api, ...caseServices(api, path) };
}
