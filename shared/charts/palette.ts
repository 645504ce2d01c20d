/**
 * The data palettes, defined once: one for models and one for runs, two families a reader should never
 * confuse. Models get vivid colours, runs muted ones, and the tests (palette.test.ts) hold both to
 * distances in CIELAB (ΔE2000): every pair of the first 12 model colours, every pair of run colours and
 * every run–model pair stay apart, also under simulated deuteranopia and protanopia for the models.
 * Every colour keeps at least 2:1 contrast on both theme backgrounds, so one palette serves light and dark.
 *
 * A model's colour is `MODEL_PALETTE[color_index % length]`, where `color_index` comes from `listModels`
 * (modelColorSlots: stable across views, runs added later, and exports, and no two models of one run alike).
 * Past its length colours repeat across runs; legends and chips always carry the name as well.
 */
export const MODEL_PALETTE: readonly string[] = [
  // Okabe–Ito first (colour-blind safe; black left out, it vanishes in the dark theme; yellow left out, it vanishes on white).
  '#0072B2', // blue
  '#E69F00', // orange
  '#009E73', // bluish green
  '#D55E00', // vermillion
  '#CC79A7', // reddish purple
  '#56B4E9', // sky blue
  // Then the colours farthest (ΔE2000) from those before them, among vivid ones readable on both backgrounds.
  '#992233', // wine
  '#AA0077', // magenta
  '#7777FF', // periwinkle
  '#FF5577', // rose
  '#BB2200', // brick
  '#5500EE', // violet
  '#007755', // pine
  '#44CCAA', // aquamarine
  '#DD0055', // crimson
  // Six more by the same rule, kept vivid (CIELAB chroma ≥ 35) so none reads as a run or the unknown grey:
  // a figure of one database's 20 or so models then repeats no colour.
  '#665500', // olive
  '#99BB00', // lime
  '#DD00FF', // electric purple
  '#448800', // leaf green
  '#BBAAEE', // lavender
  '#665599', // dusk
];

/**
 * Each model's palette slot (`color_index`), the models in the order colours are given (listModels: the pool's,
 * then the others as they arrived) and `runs` the models each run used. A model takes the slot of its place in
 * that order (its colour before any clash), unless a model of one of its runs already has it: then the next slot
 * none of them has. So models keep their colours as runs are added, and a run of up to MODEL_PALETTE.length models
 * (the Aider history's 13, in a database of 34) shows no two alike in its chips, its episodes and its figures.
 */
export function modelColorSlots(models: readonly string[], runs: readonly (readonly string[])[], size = MODEL_PALETTE.length): number[] {
  const index = new Map(models.map((m, i) => [m, i]));
  const together = models.map(() => new Set<number>());
  for (const used of runs) {
    const ids = [...new Set(used.flatMap((m) => (index.has(m) ? [index.get(m) as number] : [])))];
    for (const a of ids) for (const b of ids) if (a !== b) together[a]?.add(b);
  }
  const slots: number[] = [];
  models.forEach((_, i) => {
    const taken = new Set([...(together[i] ?? [])].filter((j) => j < i).map((j) => slots[j] as number));
    let slot = i % size;
    for (let k = 0; k < size && taken.has(slot); k++) slot = (slot + 1) % size;
    slots.push(taken.has(slot) ? i % size : slot);
  });
  return slots;
}

/** (run, model) pairs → each run's models, for modelColorSlots. */
export function modelsByRun(pairs: readonly { run: string | number; model: string }[]): string[][] {
  const byRun = new Map<string | number, string[]>();
  for (const p of pairs) byRun.set(p.run, [...(byRun.get(p.run) ?? []), p.model]);
  return [...byRun.values()];
}

/** Colour of a model not (yet) known to listModels. */
export const UNKNOWN_MODEL_COLOR = '#8A8F98';

export function paletteColor(colorIndex: number | null | undefined): string {
  if (colorIndex == null || colorIndex < 0) return UNKNOWN_MODEL_COLOR;
  return MODEL_PALETTE[colorIndex % MODEL_PALETTE.length] ?? UNKNOWN_MODEL_COLOR;
}

/**
 * Runs drawn in one figure, muted so that a run is never read as a model. As many colours as a figure
 * draws runs at most (layouts/common.ts MAX_RUNS_DRAWN, the selection's drawn runs: shared/drawnRuns.ts), so
 * the runs of one figure never share one.
 */
export const RUN_PALETTE: readonly string[] = [
  '#44AABB', // teal
  '#BB6655', // clay
  '#996688', // mauve
  '#446655', // slate green
  '#EE9966', // apricot
  '#AABBAA', // sage grey
];

/** FNV-1a of a run's name: the same number in every view, reload, export and database. */
function nameHash(name: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    h ^= name.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** The colour a run has wherever it is drawn alone or without a clash: from its name, not its position in a list. */
export function ownRunColor(name: string): string {
  return RUN_PALETTE[nameHash(name) % RUN_PALETTE.length] as string;
}

/**
 * The one rule runs are coloured by, given the runs of a selection that figures draw (shared/drawnRuns.ts; every
 * figure, export and view of the selection passes the same list, so a run has one colour in all of them). Each
 * run keeps its own colour (ownRunColor), so it also keeps it across selections and reloads unless another run of
 * the list has it: then the later by name takes the next free colour, and no two runs of the list look alike.
 * Past RUN_PALETTE.length names, colours repeat.
 */
export function runColors(names: readonly string[]): (name: string) => string {
  const colors = new Map<string, string>();
  const taken = new Set<number>();
  const n = RUN_PALETTE.length;
  for (const name of [...new Set(names)].sort((a, b) => a.localeCompare(b))) {
    if (taken.size >= n) taken.clear();
    let slot = nameHash(name) % n;
    while (taken.has(slot)) slot = (slot + 1) % n;
    taken.add(slot);
    colors.set(name, RUN_PALETTE[slot] as string);
  }
  return (name) => colors.get(name) ?? ownRunColor(name);
}

/** A model's colour, with (when known) the order colours were given in: color_index, the older model first. */
export type ModelColorOf = ((name: string) => string) & { order?: (name: string) => number };

/**
 * Model colours for the models one figure draws. A database can hold more models than MODEL_PALETTE has
 * colours, so their own colours (`modelColor`, from color_index) wrap and two drawn models may share one.
 * Every model whose own colour is free keeps it, so a model looks the same as in every other view; of models
 * that share one, the one given it first (`order`; else the first by name) keeps it, and the others take the
 * next palette colours no drawn model has.
 * A figure of up to MODEL_PALETTE.length models thus repeats no colour.
 */
export function distinctModelColors(modelColor: ModelColorOf, names: readonly string[]): (name: string) => string {
  const order = modelColor.order ?? (() => 0);
  const sorted = [...new Set(names)].sort((a, b) => order(a) - order(b) || a.localeCompare(b));
  const colors = new Map<string, string>();
  const taken = new Set<string>();
  for (const name of sorted) {
    const own = modelColor(name);
    if (taken.has(own) && own !== UNKNOWN_MODEL_COLOR) continue;
    colors.set(name, own);
    taken.add(own);
  }
  const n = MODEL_PALETTE.length;
  for (const name of sorted) {
    if (colors.has(name)) continue;
    const own = modelColor(name);
    const start = Math.max(0, MODEL_PALETTE.indexOf(own));
    let color = own;
    for (let k = 1; k <= n; k++) {
      const candidate = MODEL_PALETTE[(start + k) % n] as string;
      if (!taken.has(candidate)) {
        color = candidate;
        break;
      }
    }
    colors.set(name, color);
    taken.add(color);
  }
  return (name) => colors.get(name) ?? modelColor(name);
}
