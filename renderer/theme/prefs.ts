/**
 * UI preferences kept across launches in localStorage under a versioned schema (STYLE §10): a value written
 * by another version, or edited by hand, is read through the schema and replaced by defaults if it does not fit.
 */
import { z } from 'zod';

const KEY = 'routelens.prefs';

export const Prefs = z.object({
  version: z.literal(1),
  theme: z.enum(['light', 'dark']).nullable(),
});
export type Prefs = z.infer<typeof Prefs>;

export const DEFAULT_PREFS: Prefs = { version: 1, theme: null };

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
