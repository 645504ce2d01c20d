/**
 * Deep links live in the URL fragment, so they work the same on the desktop app:// origin and in `serve`:
 *   #/runs   #/episodes   #/episode/<id>   #/episode/<id>/turn/<t>
 *   #/analyses   #/analyses/<analysis id>   #/estimator   #/policy
 * with the run selection as an optional query: `#/episodes?runs=3,5`.
 */
export type Route =
  | { view: 'runs' }
  | { view: 'episodes' }
  | { view: 'episode'; episodeId: number; turn: number | null }
  /** `analysis` is a DESIGN §8 id (lift, pareto, …); null shows the list of analyses. */
  | { view: 'analyses'; analysis: string | null }
  | { view: 'estimator' }
  | { view: 'policy' };

export type ViewName = Route['view'];

export interface AppLocation {
  route: Route;
  runIds: number[];
}

const DEFAULT_ROUTE: Route = { view: 'runs' };

function nonNegativeInt(text: string | undefined): number | null {
  if (text === undefined || !/^\d{1,9}$/.test(text)) return null;
  return Number(text);
}

export function parseRoute(path: string): Route {
  const parts = path.split('/').filter((p) => p !== '');
  const [head, idText, turnWord, turnText] = parts;
  if (head === 'runs' && parts.length === 1) return { view: 'runs' };
  if (head === 'episodes' && parts.length === 1) return { view: 'episodes' };
  if (head === 'estimator' && parts.length === 1) return { view: 'estimator' };
  if (head === 'policy' && parts.length === 1) return { view: 'policy' };
  if (head === 'analyses' && parts.length === 1) return { view: 'analyses', analysis: null };
  if (head === 'analyses' && parts.length === 2 && idText !== undefined && /^[a-z][a-z-]{0,40}$/.test(idText)) {
    return { view: 'analyses', analysis: idText };
  }
  if (head === 'episode') {
    const episodeId = nonNegativeInt(idText);
    if (episodeId === null) return DEFAULT_ROUTE;
    if (parts.length === 2) return { view: 'episode', episodeId, turn: null };
    const turn = nonNegativeInt(turnText);
    if (parts.length === 4 && turnWord === 'turn' && turn !== null) return { view: 'episode', episodeId, turn };
  }
  return DEFAULT_ROUTE;
}

export function parseRunIds(text: string | null): number[] {
  if (!text) return [];
  const ids = text
    .split(',')
    .map((s) => nonNegativeInt(s.trim()))
    .filter((n): n is number => n !== null);
  return [...new Set(ids)].sort((a, b) => a - b);
}

export function parseHash(hash: string): AppLocation {
  const body = hash.replace(/^#/, '');
  const q = body.indexOf('?');
  const path = q === -1 ? body : body.slice(0, q);
  const query = new URLSearchParams(q === -1 ? '' : body.slice(q + 1));
  return { route: parseRoute(path), runIds: parseRunIds(query.get('runs')) };
}

export function formatRoute(route: Route): string {
  switch (route.view) {
    case 'runs':
      return '#/runs';
    case 'episodes':
      return '#/episodes';
    case 'episode':
      return route.turn === null ? `#/episode/${route.episodeId}` : `#/episode/${route.episodeId}/turn/${route.turn}`;
    case 'analyses':
      return route.analysis === null ? '#/analyses' : `#/analyses/${route.analysis}`;
    case 'estimator':
      return '#/estimator';
    case 'policy':
      return '#/policy';
  }
}

export function formatHash(location: AppLocation): string {
  const base = formatRoute(location.route);
  return location.runIds.length > 0 ? `${base}?runs=${location.runIds.join(',')}` : base;
}
