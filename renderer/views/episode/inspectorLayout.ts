/**
 * How the inspector lays itself out: what the user chose (kept in the prefs) and, for what they have not, a
 * default from the window's size, so that the conversation gets most of the window's height on a small screen
 * (1024×700, 1280×720) while a tall one still shows the full header and cost timeline. The step debugger and the
 * what-if panel open on demand (a key and a button) and stay as last chosen: the conversation has the width.
 */
import type { InspectorLayoutPrefs } from '../../theme/prefs.ts';

export type Density = 'full' | 'compact';

export interface InspectorLayout {
  header: Density;
  timeline: Density;
  debuggerOpen: boolean;
  whatIfOpen: boolean;
}

/** Below this window height the header and timeline start compact. */
export const COMPACT_BELOW_HEIGHT = 800;

/**
 * From this window width the open debugger and what-if have a column of their own beside the conversation;
 * narrower, they lie over its right side. Matches the `max-width: 1180px` rules in conversation.css.
 */
export const SIDE_BESIDE_FROM_WIDTH = 1181;

export function inspectorLayout(chosen: InspectorLayoutPrefs, window: { width: number; height: number }): InspectorLayout {
  const short = window.height < COMPACT_BELOW_HEIGHT;
  return {
    header: chosen.header ?? (short ? 'compact' : 'full'),
    timeline: chosen.timeline ?? (short ? 'compact' : 'full'),
    debuggerOpen: chosen.debuggerOpen ?? false,
    whatIfOpen: chosen.whatIfOpen ?? false,
  };
}
