/**
 * Every key the window answers to, in one list: the shortcut help (`?`) shows it, and the handlers bind from
 * it (the global keys below; the inspector's by action name, `TURN_KEYS`). Keys are `KeyboardEvent.key`
 * values; `keyLabel` turns them into what a keyboard shows.
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
  close: { keys: ['Escape'], what: 'Close the palette, this list or a dialog' },
} as const satisfies Record<string, KeyBinding>;

export type GlobalKey = Exclude<keyof typeof GLOBAL_KEYS, 'close'>;

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

/** The Episodes list's own keys (EpisodeTable's rows). */
export const EPISODE_LIST_KEYS: readonly KeyBinding[] = [
  { keys: ['ArrowDown', 'ArrowUp'], what: 'Move between rows' },
  { keys: ['Enter'], what: 'Open the episode (at the matching turn when searching)' },
];

export interface KeyGroup {
  title: string;
  bindings: readonly KeyBinding[];
}

export const KEY_GROUPS: readonly KeyGroup[] = [
  { title: 'Anywhere', bindings: Object.values(GLOBAL_KEYS) },
  { title: 'Episode inspector', bindings: Object.values(TURN_KEYS) },
  { title: 'Episodes list', bindings: EPISODE_LIST_KEYS },
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
