/**
 * Every key the window answers to, in one list: the shortcut help (`?`) shows it, and the handlers bind from
 * it (`matches`, or `keyAction` for a table of actions). A handler never compares `KeyboardEvent.key` with a
 * literal of its own: shortcuts.test.ts reads every renderer module and fails on one, so a key cannot work
 * without `?` listing it. Keys are `KeyboardEvent.key` values; `keyLabel` turns them into what a keyboard shows.
 */
export interface KeyBinding {
  /** Alternatives, each a `KeyboardEvent.key` (with `Mod+` for Ctrl, or ⌘ on a Mac). */
  keys: readonly string[];
  what: string;
}

/** Keys that work in every view. Ctrl/⌘+K works from a text field too: it types nothing there. */
export const GLOBAL_KEYS = {
  palette: { keys: ['Mod+k'], what: 'Command palette: views, runs, episodes by id, analyses, actions' },
  help: { keys: ['?'], what: 'This list of keys' },
  search: { keys: ['/'], what: 'Search the turns of episodes (opens the Episodes view)' },
  close: { keys: ['Escape'], what: 'Close the palette, this list, a dialog or a menu' },
  focus: { keys: ['Tab'], what: 'Next control (Shift+Tab: the one before); a dialog keeps it inside' },
} as const satisfies Record<string, KeyBinding>;

export type GlobalKey = Exclude<keyof typeof GLOBAL_KEYS, 'close' | 'focus'>;

/** What the inspector's keys do (views/episode/useTurnKeys.ts binds them to TURN_KEYS). */
export interface TurnKeyActions {
  next(): void;
  prev(): void;
  first(): void;
  last(): void;
  nextError(): void;
  prevError(): void;
  nextSwitch(): void;
  prevSwitch(): void;
  /** Absent where there is no list of episodes to step through (the split inspector). */
  nextEpisode?(): void;
  prevEpisode?(): void;
}

/**
 * The inspector's keys per action of `useTurnKeys`. Typed by its actions, so an action added to TurnKeyActions
 * without a key and a line here does not compile.
 */
export const TURN_KEYS: Record<keyof TurnKeyActions, KeyBinding> = {
  next: { keys: ['j', 'ArrowDown', 'ArrowRight'], what: 'Next turn' },
  prev: { keys: ['k', 'ArrowUp', 'ArrowLeft'], what: 'Previous turn' },
  first: { keys: ['Home'], what: 'First turn' },
  last: { keys: ['End'], what: 'Last turn' },
  nextError: { keys: ['n'], what: 'Next turn with an error' },
  prevError: { keys: ['N'], what: 'Previous turn with an error' },
  nextSwitch: { keys: ['s'], what: 'Next model switch' },
  prevSwitch: { keys: ['S'], what: 'Previous model switch' },
  nextEpisode: { keys: [']', 'J'], what: 'Next episode (in the Episodes list you came from, else by id in its run)' },
  prevEpisode: { keys: ['[', 'K'], what: 'Previous episode' },
};

/** The inspector's side panels: what-if at any time, the step debugger's while it is open. */
export const INSPECTOR_PANEL_KEYS = {
  whatIf: { keys: ['w'], what: 'Open or close “What if another model had taken this turn?”' },
  debugger: { keys: ['d'], what: 'Open or close the step debugger (breakpoints, ŝ and regret per turn)' },
  play: { keys: ['p'], what: 'Step debugger (open): play until a breakpoint, or pause' },
  nextBreak: { keys: ['c'], what: 'Step debugger: continue to the next breakpoint' },
  prevBreak: { keys: ['C'], what: 'Step debugger: back to the previous breakpoint' },
} as const satisfies Record<string, KeyBinding>;

/**
 * The split inspector (pair view): the inspector's keys, but n / N step through the turns where A and B differ
 * (what a reader of a pair looks for), and Escape goes back to Compare. No episode keys: a pair is two episodes.
 */
export const PAIR_KEYS = {
  next: TURN_KEYS.next,
  prev: TURN_KEYS.prev,
  first: TURN_KEYS.first,
  last: TURN_KEYS.last,
  nextDifference: { keys: TURN_KEYS.nextError.keys, what: 'Next turn where A and B differ' },
  prevDifference: { keys: TURN_KEYS.prevError.keys, what: 'Previous turn where A and B differ' },
  nextSwitch: { keys: TURN_KEYS.nextSwitch.keys, what: 'Next model switch in A or B' },
  prevSwitch: { keys: TURN_KEYS.prevSwitch.keys, what: 'Previous model switch in A or B' },
  back: { keys: ['Escape'], what: 'Back to Compare' },
} as const satisfies Record<string, KeyBinding>;

/** Rows of a list or table with focus: Episodes, Runs, Compare's tasks, the policy lab's differences. */
export const LIST_KEYS = {
  down: { keys: ['ArrowDown'], what: 'Next row' },
  up: { keys: ['ArrowUp'], what: 'Previous row' },
  open: { keys: ['Enter', ' '], what: 'Open the row: a run’s episodes, an episode (at the matching turn when searching), a task’s pair, a turn' },
} as const satisfies Record<string, KeyBinding>;

/** A figure's marks (bars, points) once one has focus (Tab into the figure). */
export const FIGURE_KEYS = {
  next: { keys: ['ArrowRight', 'ArrowDown'], what: 'Next mark of the figure' },
  prev: { keys: ['ArrowLeft', 'ArrowUp'], what: 'Previous mark' },
  first: { keys: ['Home'], what: 'First mark' },
  last: { keys: ['End'], what: 'Last mark' },
  open: { keys: ['Enter', ' '], what: 'Open what the mark stands for (its episodes, its turn)' },
  hide: { keys: ['Escape'], what: 'Hide the mark’s tooltip' },
} as const satisfies Record<string, KeyBinding>;

/** The command palette's list. cmdk binds these itself; they are here so that `?` lists them. */
export const PALETTE_KEYS = {
  move: { keys: ['ArrowDown', 'ArrowUp'], what: 'Next or previous entry' },
  choose: { keys: ['Enter'], what: 'Do the highlighted entry' },
} as const satisfies Record<string, KeyBinding>;

/** Keys inside a text field. */
export const FIELD_KEYS = {
  apply: { keys: ['Enter'], what: 'In the Episodes search or a figure’s number: apply it now' },
  cancel: { keys: ['Escape'], what: 'Renaming an estimator: leave the name as it was' },
} as const satisfies Record<string, KeyBinding>;

export interface KeyGroup {
  title: string;
  bindings: readonly KeyBinding[];
}

export const KEY_GROUPS: readonly KeyGroup[] = [
  { title: 'Anywhere', bindings: Object.values(GLOBAL_KEYS) },
  { title: 'Episode inspector', bindings: [...Object.values(TURN_KEYS), ...Object.values(INSPECTOR_PANEL_KEYS)] },
  { title: 'Split inspector (a pair of episodes)', bindings: Object.values(PAIR_KEYS) },
  { title: 'Lists and tables', bindings: Object.values(LIST_KEYS) },
  { title: 'Figures', bindings: Object.values(FIGURE_KEYS) },
  { title: 'Command palette', bindings: Object.values(PALETTE_KEYS) },
  { title: 'Text fields', bindings: Object.values(FIELD_KEYS) },
];

/** True on a Mac, where `Mod` is ⌘ (the Meta key) rather than Ctrl. */
export function isMac(platform: string = typeof navigator === 'undefined' ? '' : navigator.platform): boolean {
  return /mac|iphone|ipad/i.test(platform);
}

const NAMED: Record<string, string> = {
  ArrowDown: '↓',
  ArrowUp: '↑',
  ArrowLeft: '←',
  ArrowRight: '→',
  Escape: 'Esc',
  Enter: 'Enter',
  Home: 'Home',
  End: 'End',
  Tab: 'Tab',
  ' ': 'Space',
};

/**
 * One key as keycaps: `Mod+k` → ['Ctrl', 'K'] (['⌘', 'K'] on a Mac), `N` → ['Shift', 'N'], `j` → ['j'] (a
 * plain letter as typed, so j and Shift+J read apart).
 */
export function keyLabel(key: string, mac = isMac()): string[] {
  if (key.startsWith('Mod+')) return [mac ? '⌘' : 'Ctrl', key.slice(4).toUpperCase()];
  const named = NAMED[key];
  if (named) return [named];
  if (/^[A-Z]$/.test(key)) return ['Shift', key];
  return [key];
}

export interface KeyPress {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  shiftKey?: boolean;
}

/** Does this key press match one of the binding's keys? Letters ignore case only behind `Mod+`. */
export function matches(binding: KeyBinding, e: KeyPress, mac = isMac()): boolean {
  return binding.keys.some((k) => {
    if (k.startsWith('Mod+')) {
      const mod = mac ? e.metaKey && !e.ctrlKey : e.ctrlKey && !e.metaKey;
      return mod && !e.altKey && e.key.toLowerCase() === k.slice(4).toLowerCase();
    }
    return !e.ctrlKey && !e.metaKey && !e.altKey && e.key === k;
  });
}

/** The action of `table` this press asks for, if any (the first that matches, in the table's order). */
export function keyAction<A extends string>(table: Readonly<Record<A, KeyBinding>>, e: KeyPress, mac = isMac()): A | null {
  for (const action of Object.keys(table) as A[]) if (matches(table[action], e, mac)) return action;
  return null;
}

/**
 * Which global key this press is, if any. While typing in a field only the palette's chord counts: `?` and
 * `/` are text there.
 */
export function globalKeyOf(e: KeyPress, typing: boolean, mac = isMac()): GlobalKey | null {
  if (matches(GLOBAL_KEYS.palette, e, mac)) return 'palette';
  if (typing) return null;
  if (matches(GLOBAL_KEYS.help, e, mac)) return 'help';
  if (matches(GLOBAL_KEYS.search, e, mac)) return 'search';
  return null;
}
