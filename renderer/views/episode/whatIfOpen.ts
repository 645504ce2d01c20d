/**
 * Whether the inspector's what-if section is open: one flag for the session, so it stays open while the user
 * steps through turns and episodes, and so other panels (the step debugger) can open it.
 */
import { create } from 'zustand';

interface WhatIfOpen {
  open: boolean;
  setOpen(open: boolean): void;
  toggle(): void;
}

export const useWhatIfOpen = create<WhatIfOpen>()((set, get) => ({
  open: false,
  setOpen: (open) => set({ open }),
  toggle: () => set({ open: !get().open }),
}));
