/**
 * Scrolls the page's first search hit into view when it is inside `ref`. Every block that marks hits calls this;
 * only the one holding the first hit in document order scrolls, so blocks do not fight over the position. Hits
 * under `[data-hits-secondary]` (the episode's task shown above a turn) count only when there is no other: the
 * search matched the turn, so its own text is where the reader is taken. It runs a frame later, after the
 * inspector has put a newly opened turn at its top.
 */
import { useEffect, type RefObject } from 'react';

export function useScrollToFirstHit(ref: RefObject<HTMLElement | null>, highlight: string | undefined, ...deps: unknown[]): void {
  useEffect(() => {
    if (!highlight?.trim()) return;
    const frame = requestAnimationFrame(() => {
      const marks = [...document.querySelectorAll('mark.search-hit')];
      const first = marks.find((m) => !m.closest('[data-hits-secondary]')) ?? marks[0];
      if (first && ref.current?.contains(first)) first.scrollIntoView({ block: 'center' });
    });
    return () => cancelAnimationFrame(frame);
  }, [highlight, ref, ...deps]);
}
