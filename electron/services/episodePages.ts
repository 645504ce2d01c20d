/**
 * Long episodes a page at a time (issue 38): past TURN_PAGE turns an episode answer carries an outline of every turn
 * and the details of one page. The outline and the page maths live here, for both stores; each store reads its rows.
 */
import {
  COST_SOURCES, TURN_PAGE, type EpisodeDetail, type TurnDetail, type TurnErrorInfo, type TurnOutline,
} from '../../shared/api.ts';
import type { Severity } from '../../shared/canonical.ts';
import { nameKeyed } from '../../shared/nameKeyed.ts';

/** The first turn index of the page holding `around`: pages are aligned to TURN_PAGE, so a page is known by its start. */
export function pageStart(count: number, around: number | undefined): number {
  if (count <= TURN_PAGE || around === undefined || count === 0) return 0;
  return Math.floor(Math.min(around, count - 1) / TURN_PAGE) * TURN_PAGE;
}

/** What the outline reads of a turn. */
export interface OutlineLine {
  t: number;
  model: string;
  /** Null when unknown (cost_source 'none'), as in TurnDetail. */
  cost: number | null;
  cost_source: TurnDetail['cost_source'];
  switched: boolean;
  errors: readonly TurnErrorInfo[];
  max_severity: Severity | null;
}

export function outlineOf(lines: readonly OutlineLine[]): TurnOutline {
  const modelIndex = nameKeyed<number>();
  const outline: TurnOutline = { models: [], model: [], t: [], cost: [], cost_source: [], switched: [], errors: [] };
  lines.forEach((line, i) => {
    let m = modelIndex[line.model];
    if (m === undefined) {
      m = outline.models.length;
      modelIndex[line.model] = m;
      outline.models.push(line.model);
    }
    outline.model.push(m);
    outline.t.push(line.t);
    outline.cost.push(line.cost);
    outline.cost_source.push(COST_SOURCES.indexOf(line.cost_source));
    outline.switched.push(line.switched ? 1 : 0);
    if (line.errors.length > 0) outline.errors.push({ i, errors: [...line.errors], max_severity: line.max_severity ?? line.errors[0]?.severity ?? 'low' });
  });
  return outline;
}

/** The cost of turns 0…from-1, or null when one of them is unknown (the cumulative cost stops there). */
export function costBefore(lines: readonly Pick<OutlineLine, 'cost' | 'cost_source'>[], from: number): number | null {
  let sum = 0;
  for (let i = 0; i < from && i < lines.length; i++) {
    const line = lines[i] as OutlineLine;
    if (line.cost_source === 'none' || line.cost === null) return null;
    sum += line.cost;
  }
  return sum;
}

type WholeEpisode = Omit<EpisodeDetail, 'turn_count' | 'turns_from' | 'outline'>;

/**
 * An episode read whole (every turn in full) as the contract answers it: unchanged up to TURN_PAGE turns, else the
 * page holding `around` and the outline of every turn. The ClickHouse store reads every turn and pages here.
 */
export function pagedDetail(whole: WholeEpisode, around?: number): EpisodeDetail {
  const count = whole.turns.length;
  if (count <= TURN_PAGE) return { ...whole, turn_count: count, turns_from: 0, outline: null };
  const from = pageStart(count, around);
  return { ...whole, turns: whole.turns.slice(from, from + TURN_PAGE), turn_count: count, turns_from: from, outline: outlineOf(whole.turns) };
}
