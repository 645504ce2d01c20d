/**
 * Where a click on a figure mark leads (shared/charts/scene.ts `MarkLink`), as store actions and words.
 * Analysis results name episodes by the log's id and runs by name, so some links are resolved first: run
 * names through the session's run list, an `episode-ref` through `getEpisode`.
 */
import type { RunSummary } from '../../shared/api.ts';
import type { MarkLink } from '../../shared/charts/scene.ts';
import type { AppStore } from '../store/storeShape.ts';

export interface LinkActions extends Pick<AppStore, 'navigate' | 'openEpisodesFromFigure'> {
  runs: readonly Pick<RunSummary, 'id' | 'name'>[];
  /** The database id of an episode named by the log's id (and its run, where ids repeat across runs). */
  resolveEpisode(ref: { ext_id: string; run?: string }): Promise<number>;
}

/** Run names → ids; a name the session does not know is left out (the list then shows the runs it knows). */
export function runIdsByName(names: readonly string[], runs: LinkActions['runs']): number[] {
  const byName = new Map(runs.map((r) => [r.name, r.id]));
  return names.flatMap((n) => {
    const id = byName.get(n);
    return id === undefined ? [] : [id];
  });
}

export async function followMarkLink(link: MarkLink, store: LinkActions): Promise<void> {
  switch (link.kind) {
    case 'turn':
      store.navigate({ view: 'episode', episodeId: link.episodeId, turn: link.turn });
      return;
    case 'episode':
      store.navigate({ view: 'episode', episodeId: link.episodeId, turn: null });
      return;
    case 'pair':
      store.navigate({ view: 'pair', a: link.a, b: link.b, turn: null });
      return;
    case 'episode-ref': {
      const episodeId = await store.resolveEpisode({ ext_id: link.ext_id, run: link.run });
      store.navigate({ view: 'episode', episodeId, turn: link.turn ?? null });
      return;
    }
    case 'episodes': {
      const ids = [...(link.runIds ?? []), ...(link.runs ? runIdsByName(link.runs, store.runs) : [])];
      const named = link.runIds !== undefined || link.runs !== undefined;
      store.openEpisodesFromFigure({ label: link.label, runIds: named ? ids : undefined, models: link.models, outcome: link.outcome });
      return;
    }
  }
}

/** The hint under a tooltip, so a user knows a click does something and what. */
export function linkHint(link: MarkLink): string {
  switch (link.kind) {
    case 'turn':
      return `Click to open turn ${link.turn} of the episode`;
    case 'episode':
      return 'Click to open the episode';
    case 'episode-ref':
      return link.turn === undefined ? 'Click to open the episode' : `Click to open turn ${link.turn} of ${link.ext_id}`;
    case 'episodes':
      return 'Click to list these episodes';
    case 'pair':
      return 'Click to open both episodes side by side';
  }
}
