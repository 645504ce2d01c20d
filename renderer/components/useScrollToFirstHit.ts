/**
 * Scrolls the page's first search hit into view when it is inside `ref`. Every block that marks hits calls this;
 * only the one holding the first hit in document order scrolls, so blocks do not fight over the position. Hits
 * under `[data-hits-secondary]` count only when there is no other. It runs a frame later, after the view has put
 * a newly opened text in place. Inside `OwnsHitScroll` (the inspector's conversation, which shows many turns at
 * once and takes the reader to the turn's own hit) blocks leave the scrolling to it.
 */
import { createContext, createElement, useContext, useEffect, type ReactNode, type RefObject } from 'react';

const Owned = createContext(false);

/** A view that scrolls to search hits itself. */
export function OwnsHitScroll({ children }: { children: ReactNode }) {
  return createElement(Owned.Provider, { value: true }, children);
}

export function useScrollToFirstHit(ref: RefObject<HTMLElement | null>, highlight: string | undefined, ...deps: unknown[]): void {
  const owned = useContext(Owned);
  useEffect(() => {
    if (owned || !highlight?.trim()) return;
    const frame = requestAnimationFrame(() => {
      const marks = [...document.querySelectorAll('mark.search-hit')];
      const first = marks.find((m) => !m.closest('[data-hits-secondary]')) ?? marks[0];
      if (first && ref.current?.contains(first)) first.scrollIntoView({ block: 'center' });
    });
    return () => cancelAnimationFrame(frame);
  }, [owned, highlight, ref, ...deps]);
}
