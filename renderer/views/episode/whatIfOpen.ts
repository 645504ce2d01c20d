/**
 * Whether the inspector's what-if panel is open: part of the inspector's layout, remembered across reloads (the
 * prefs), so it stays open while the user steps through turns and episodes, and other panels (the step debugger)
 * can open it.
 */
import { useAppStore } from '../../store/index.ts';

export function setWhatIfOpen(open: boolean): void {
  useAppStore.getState().setInspectorLayout({ whatIfOpen: open });
}
