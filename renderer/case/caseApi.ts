/**
 * The API of a shared case's page: the case build puts this module where renderer/api/index.ts is (vite.case.config.ts),
 * so the app's views, unchanged, read the episode, the run or the comparison the file carries (shared/caseFile.ts)
 * through the same contract client, whose answers are checked as the core's are. What the file does not carry (an
 * estimator's what-if, an analysis, another episode) is "not in this file", as a missing episode is in a database.
 */
import { TURN_PAGE, type ApiInput, type ApiName, type EpisodeDetail, type EpisodeRow, type RouteLensApi } from '../../shared/api.ts';
import type { CaseData } from '../../shared/caseFile.ts';
import { ApiCallError, contractClient, type Transport } from '../api/contractClient.ts';

export { ApiCallError } from '../api/contractClient.ts';



let shown: CaseData | null = null;

/** The case the page shows; set once, before the views first ask. */
export function installCase(data: CaseData): void {
  shown = data;
}

function episodeOf(data: CaseData, name: ApiName, input: ApiInput<'getEpisode'>): EpisodeDetail {
  const found = 'id' in input ? data.episodes.find((e) => e.episode.id === input.id) : data.episodes.find((e) => e.episode.ext_id === input.ext_id && (input.run === undefined || e.episode.run === input.run));
  if (!found) throw new ApiCallError(name, 'not_found', `this case does not hold episode ${'id' in input ? input.id : input.ext_id}`);
  return found;
}

/** The Episodes list's rows of the case: a run's sessions, or the episodes carried. */
function rowsOf(data: CaseData): EpisodeRow[] {
  return data.rows.length > 0 ? data.rows : data.episodes.filter((e) => e.episode.parent === null).map((e) => e.episode);
}

const answer: Transport = async (name, input) => {
  const data = shown;
  if (!data) throw new ApiCallError(name, 'transport', 'the case has not been read yet');
  switch (name) {
    case 'dbInfo':
      return data.db_info;
    case 'listRuns':
      return data.runs;
    case 'listModels':
      return data.models;
    case 'getEpisode': {
      const q = input as ApiInput<'getEpisode'>;
      const detail = episodeOf(data, name, q);
      if (!detail.outline) return detail;
      // A long episode answers as the core does: its outline and the page around the turn asked for.
      const from = Math.floor(Math.min(q.around ?? 0, Math.max(0, detail.turn_count - 1)) / TURN_PAGE) * TURN_PAGE;
      return { ...detail, turns: detail.turns.slice(from, from + TURN_PAGE), turns_from: from };
    }
    case 'getTurns': {
      const q = input as ApiInput<'getTurns'>;
      const detail = episodeOf(data, name, { id: q.id });
      return { from: q.from, turns: detail.turns.slice(q.from, q.from + q.count) };
    }
    case 'queryEpisodes': {
      const q = input as ApiInput<'queryEpisodes'>;
      const rows = rowsOf(data)
        .filter((r) => (!q.runIds?.length || q.runIds.includes(r.run_id)) && (q.ext_id === undefined || r.ext_id === q.ext_id))
        .sort((a, b) => (q.desc ? b.id - a.id : a.id - b.id));
      const offset = q.offset ?? 0;
      return { total: rows.length, rows: rows.slice(offset, offset + (q.limit ?? 200)) };
    }
    case 'compare':
      if (data.compare) return data.compare.result;
      break;
    case 'runAnalysis': {
      // The inspector's plan turns ask for their episode's plan; the file carries each episode's.
      const q = input as ApiInput<'runAnalysis'>;
      const plan = data.plans.find((p) => q.id === 'plan-dag' && p.request.episode === q.episode && (p.request.runs ?? []).join() === (q.runs ?? []).join());
      if (plan) return plan;
      break;
    }
  }
  throw new ApiCallError(name, 'not_found', 'not in this shared case: open the log in RouteLens for it');
};

export const api: RouteLensApi = contractClient(answer);

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
