/**
 * What the global keys open: the command palette and the shortcut help, and a request for the Episodes
 * view's search box to take focus (`/` from another view, answered once that view has mounted). Apart from
 * the app store: nothing here is part of where the user is or what a view shows.
 */
import { create } from 'zustand';

export type Overlay = 'palette' | 'help';

interface OverlayState {
  open: Overlay | null;
  /** Set by `/`; the search box focuses itself and clears it. */
  searchFocusWanted: boolean;
  show(overlay: Overlay): void;
  toggle(overlay: Overlay): void;
  close(): void;
  wantSearchFocus(wanted: boolean): void;
}

/** One overlay at a time: opening the help from the palette closes the palette. */
export const useOverlays = create<OverlayState>()((set, get) => ({
  open: null,
  searchFocusWanted: false,
  show: (overlay) => set({ open: overlay }),
  toggle: (overlay) => set({ open: get().open === overlay ? null : overlay }),
  close: () => set({ open: null }),
  wantSearchFocus: (wanted) => set({ searchFocusWanted: wanted }),
}));
