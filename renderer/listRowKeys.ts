/** The keys of a focused row in a list or table (LIST_KEYS): open it, or move focus to the row above or below. */
import type { KeyboardEvent } from 'react';
import { keyAction, LIST_KEYS } from './shortcuts.ts';

export function onListRowKey(e: KeyboardEvent<HTMLElement>, open: () => void): void {
  // A control inside the row (a link) answers its own keys.
  const action = e.target === e.currentTarget ? keyAction(LIST_KEYS, e) : null;
  if (action === null) return;
  // Space would scroll the list, arrows too: the row answers instead.
  e.preventDefault();
  if (action === 'open') {
    open();
    return;
  }
  const sibling = action === 'down' ? e.currentTarget.nextElementSibling : e.currentTarget.previousElementSibling;
  if (sibling instanceof HTMLElement) sibling.focus();
}
