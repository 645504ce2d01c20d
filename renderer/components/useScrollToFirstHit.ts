/**
 * Scrolls the page's first search hit into view when it is inside `ref`. Every block that marks hits calls this;
 * only the one holding the first hit in document order scrolls, so blocks do not fight over the position. It runs
 * a frame later, after the inspector has put a newly opened turn at its top.
 */
import { useEffect, type RefObject } from 'react';

export function useScrollToFirstHit(ref: RefObject<HTMLElement | null>, highlight: string | undefined, ...deps: unknown[]): void {
  useEffect(() => {
    if (!highlight?.trim()) return;
    const frame = requestAnimationFrame(() => {
      const first = document.querySelector('mark.search-hit');
      if (first && ref.current?.contains(first)) first.scrollIntoView({ block: 'center' });
    });
    return () => cancelAnimationFrame(frame);
  }, [highlight, ref, ...deps]);
}
