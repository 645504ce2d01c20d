/**
 * Deep links live in the URL fragment, so they work the same on the desktop app:// origin and in `serve`:
 *   #/runs   #/episodes   #/episode/<id>   #/episode/<id>/turn/<t>
 *   #/analyses   #/analyses/<analysis id>   #/estimator   #/policy
 *   #/compare   #/pair/<episode A>/<episode B>   #/pair/<A>/<B>/turn/<t>
 * with the run selection as an optional query: `#/episodes?runs=3,5`, and on an episode the search that
 * opened it, to highlight in the turn's text, with the text it matched: `#/episode/12/turn/7?q=NameError&at=observation`.
 */
export type Route =
  | { view: 'runs' }
  | { view: 'episodes' }
  /** `turn` is a position in the episode (0 = its first turn), whatever numbers the log gives its turns. */
  /**
   * `at`: which stored text the search matched (`action`, `observation`, `input:N` a message before the turn,
   * `final:N` one after the last), so the reader lands on that block.
   */
  | { view: 'episode'; episodeId: number; turn: number | null; q?: string; at?: string }
  /** `analysis` is a DESIGN §8 id (lift, pareto, …); null shows the list of analyses. */
  | { view: 'analyses'; analysis: string | null }
  | { view: 'estimator' }
  | { view: 'policy' }
  /** Two runs (or groups, or one run split by a field) side by side (issue 18). */
  | { view: 'compare' }
  /** The split inspector: episode A and episode B of one task, turns aligned by index. */
  | { view: 'pair'; a: number; b: number; turn: number | null };

export type ViewName = Route['view'];

export interface AppLocation {
  route: Route;
  runIds: number[];
}

const DEFAULT_ROUTE: Route = { view: 'runs' };

/** Where a search hit can be (SearchHit's field and message). */
const HIT_AT = /^(action|observation|input:\d{1,5}|final:\d{1,5})$/;

/** The Episodes view's search box takes as much. */
const MAX_QUERY_CHARS = 500;

/** Ids up to 2^53: a ClickHouse store's episode keys and run ids are 48–52-bit numbers. */
function nonNegativeInt(text: string | undefined): number | null {
  if (text === undefined || !/^\d{1,16}$/.test(text)) return null;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : null;
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
  if (head === 'compare' && parts.length === 1) return { view: 'compare' };
  if (head === 'pair') {
    const a = nonNegativeInt(parts[1]);
    const b = nonNegativeInt(parts[2]);
    if (a === null || b === null) return DEFAULT_ROUTE;
    if (parts.length === 3) return { view: 'pair', a, b, turn: null };
    const turn = nonNegativeInt(parts[4]);
    if (parts.length === 5 && parts[3] === 'turn' && turn !== null) return { view: 'pair', a, b, turn };
    return DEFAULT_ROUTE;
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
  const route = parseRoute(path);
  const search = query.get('q')?.trim().slice(0, MAX_QUERY_CHARS);
  const at = query.get('at');
  const hit = at !== null && HIT_AT.test(at) ? { at } : {};
  return { route: route.view === 'episode' && search ? { ...route, q: search, ...hit } : route, runIds: parseRunIds(query.get('runs')) };
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
    case 'compare':
      return '#/compare';
    case 'pair':
      return route.turn === null ? `#/pair/${route.a}/${route.b}` : `#/pair/${route.a}/${route.b}/turn/${route.turn}`;
  }
}

export function formatHash(location: AppLocation): string {
  const { route, runIds } = location;
  // Run ids stay unescaped (`runs=3,5` reads better than `runs=3%2C5`); the search is the user's text.
  const query: string[] = [];
  if (runIds.length > 0) query.push(`runs=${runIds.join(',')}`);
  if (route.view === 'episode' && route.q) query.push(`q=${encodeURIComponent(route.q)}`);
  if (route.view === 'episode' && route.q && route.at) query.push(`at=${route.at}`);
  const base = formatRoute(route);
  return query.length > 0 ? `${base}?${query.join('&')}` : base;
}
