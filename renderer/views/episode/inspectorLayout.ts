/**
 * How the inspector lays itself out: what the user chose (kept in the prefs) and, for what they have not, a
 * default from the window's size, so that the turn's text gets at least half the window's height on a small
 * screen (1024×700, 1280×720) while a tall one still shows the full header and cost timeline.
 */
import type { InspectorLayoutPrefs } from '../../theme/prefs.ts';

export type Density = 'full' | 'compact';

export interface InspectorLayout {
  header: Density;
  timeline: Density;
  debuggerOpen: boolean;
}

/** Below this window height the header and timeline start compact. */
export const COMPACT_BELOW_HEIGHT = 800;

/**
 * From this window width the step debugger has a column of its own beside the text; narrower, opening it
 * narrows the text, so it starts hidden. Matches the `max-width: 1180px` rules in stepDebugger.css.
 */
export const DEBUGGER_BESIDE_FROM_WIDTH = 1181;

export function inspectorLayout(chosen: InspectorLayoutPrefs, window: { width: number; height: number }): InspectorLayout {
  const short = window.height < COMPACT_BELOW_HEIGHT;
  return {
    header: chosen.header ?? (short ? 'compact' : 'full'),
    timeline: chosen.timeline ?? (short ? 'compact' : 'full'),
    debuggerOpen: chosen.debuggerOpen ?? window.width >= DEBUGGER_BESIDE_FROM_WIDTH,
  };
}
