/**
 * UI preferences kept across launches in localStorage under a versioned schema (STYLE §10): a value written
 * by another version, or edited by hand, is read through the schema and replaced by defaults if it does not fit.
 */
import { z } from 'zod';

const KEY = 'routelens.prefs';

/**
 * How the inspector is laid out, as the user last chose it. A part left out has not been chosen yet and
 * follows the window's size (views/episode/inspectorLayout.ts), so only a deliberate choice is remembered.
 */
export const InspectorLayoutPrefs = z.object({
  /** 'compact': one line of title and totals, the task on one line. */
  header: z.enum(['full', 'compact']).optional(),
  /** 'compact': the model strip and error marks only, without the cost plot. */
  timeline: z.enum(['full', 'compact']).optional(),
  debuggerOpen: z.boolean().optional(),
  /** The what-if panel beside the conversation. */
  whatIfOpen: z.boolean().optional(),
  /** Each turn's figures past its head line (cache, cost source, propensity, router, target, candidates). */
  figures: z.boolean().optional(),
});
export type InspectorLayoutPrefs = z.infer<typeof InspectorLayoutPrefs>;

// Fields added after version 1 are optional and fall back on their own (`catch`), so a value stored by an
// older build, or one bad field, still loads and keeps the theme.
export const Prefs = z.object({
  version: z.literal(1),
  theme: z.enum(['light', 'dark']).nullable(),
  inspector: InspectorLayoutPrefs.catch({}).default({}),
});
export type Prefs = z.infer<typeof Prefs>;

export const DEFAULT_PREFS: Prefs = { version: 1, theme: null, inspector: {} };

export function loadPrefs(storage: Pick<Storage, 'getItem'> | undefined = globalThis.localStorage): Prefs {
  try {
    const raw = storage?.getItem(KEY);
    if (!raw) return DEFAULT_PREFS;
    const parsed = Prefs.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : DEFAULT_PREFS;
  } catch {
    return DEFAULT_PREFS;
  }
}

export function savePrefs(prefs: Prefs, storage: Pick<Storage, 'setItem'> | undefined = globalThis.localStorage): void {
  try {
    storage?.setItem(KEY, JSON.stringify(prefs));
  } catch {
    // Storage full or disabled (private window): the preference lasts for this session only.
  }
}
