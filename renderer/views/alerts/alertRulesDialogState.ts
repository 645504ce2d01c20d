/** Whether the "Alert rules…" editor is open: the top bar's button and the command palette open it. */
import { create } from 'zustand';

interface AlertRulesDialogState {
  open: boolean;
  setOpen(open: boolean): void;
}

export const useAlertRulesDialog = create<AlertRulesDialogState>()((set) => ({
  open: false,
  setOpen: (open) => set({ open }),
}));
