/** The inspector's layout for this window (inspectorLayout.ts), following its resizes, and the setter that remembers a choice. */
import { useMemo, useSyncExternalStore } from 'react';
import { useAppStore } from '../../store/index.ts';
import type { InspectorLayoutPrefs } from '../../theme/prefs.ts';
import { inspectorLayout, type InspectorLayout } from './inspectorLayout.ts';

function onResize(notify: () => void): () => void {
  window.addEventListener('resize', notify);
  return () => window.removeEventListener('resize', notify);
}

export function useInspectorLayout(): [InspectorLayout, (patch: InspectorLayoutPrefs) => void] {
  const chosen = useAppStore((s) => s.inspectorLayout);
  const choose = useAppStore((s) => s.setInspectorLayout);
  const width = useSyncExternalStore(onResize, () => window.innerWidth);
  const height = useSyncExternalStore(onResize, () => window.innerHeight);
  const layout = useMemo(() => inspectorLayout(chosen, { width, height }), [chosen, width, height]);
  return [layout, choose];
}
