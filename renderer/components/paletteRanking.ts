/**
 * The command palette's order: entries that match the typed text, best first, in groups ordered by their best
 * entry. Each of an entry's words is scored alone: joined, a fuzzy scorer finds "theme" in
 * "hle-router-demo episodes" (t…h…e…m…e across words) and ranks a run above the theme switch.
 */

export interface PaletteEntry<Node> {
  /** Unique among the entries. */
  id: string;
  group: string;
  /** What the typed text is matched against: the label and other words a user might try. */
  words: string[];
  /** A fixed score: the entry is listed for any text (found by the text, not matched against it). */
  always?: number;
  icon?: Node;
  hint?: Node;
  label: Node;
}

export interface PaletteGroup<E> {
  name: string;
  entries: E[];
}

/** How well `search` matches one word, 0 (not at all) to 1, e.g. cmdk's `defaultFilter`. */
export type WordScore = (word: string, search: string) => number;

export function rankEntries<E extends PaletteEntry<unknown>>(entries: readonly E[], typed: string, score: WordScore): PaletteGroup<E>[] {
  const order = new Map<string, number>();
  for (const e of entries) if (!order.has(e.group)) order.set(e.group, order.size);
  const scored = entries
    .map((entry, i) => ({ entry, i, s: typed === '' || entry.always !== undefined ? (entry.always ?? 1) : Math.max(0, ...entry.words.map((w) => score(w, typed))) }))
    .filter((x) => x.s > 0);
  const groups = new Map<string, { best: number; items: typeof scored }>();
  for (const x of scored) {
    const g = groups.get(x.entry.group) ?? { best: 0, items: [] };
    g.best = Math.max(g.best, x.s);
    g.items.push(x);
    groups.set(x.entry.group, g);
  }
  // With nothing typed every entry scores 1 and the groups keep the order they were given in.
  return [...groups.entries()]
    .sort(([a, ga], [b, gb]) => gb.best - ga.best || (order.get(a) ?? 0) - (order.get(b) ?? 0))
    .map(([name, g]) => ({ name, entries: g.items.sort((x, y) => y.s - x.s || x.i - y.i).map((x) => x.entry) }));
}

/**
 * Episodes found by the id their log gives them, best first: the id exactly as typed, then the same id in another
 * case, then ids that start with the text, then ids that hold it (the earlier it stands, the better); ties keep the
 * order given (the database's). Rows that do not hold the text at all are left out.
 */
export function rankEpisodeIds<R extends { ext_id: string }>(rows: readonly R[], typed: string): R[] {
  const needle = typed.trim();
  const lower = needle.toLowerCase();
  if (lower === '') return [];
  const tier = (id: string): number => {
    if (id === needle) return 0;
    const at = id.toLowerCase().indexOf(lower);
    if (at < 0) return -1;
    if (id.length === needle.length) return 1;
    return at === 0 ? 2 : 3 + at;
  };
  return rows
    .map((row, i) => ({ row, i, t: tier(row.ext_id) }))
    .filter((x) => x.t >= 0)
    .sort((a, b) => a.t - b.t || a.i - b.i)
    .map((x) => x.row);
}
