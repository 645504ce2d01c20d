/**
 * Whether the episode header's outcome panel is open: one flag for the session, so it stays open while the user
 * steps through episodes (reviewing why each passed or failed), and so the Episodes list's outcome cell can open it
 * on the episode it opens.
 */
import { create } from 'zustand';

interface OutcomeOpen {
  open: boolean;
  setOpen(open: boolean): void;
}

export const useOutcomeOpen = create<OutcomeOpen>()((set) => ({
  open: false,
  setOpen: (open) => set({ open }),
}));
