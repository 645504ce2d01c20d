/**
 * SQL for a split selection, for queries whose filters are assembled as text and bound elsewhere (replay,
 * training): the values are names shared/splits.ts has checked (letters, digits, `_ . -`), quoted anyway.
 */
import { splitValues } from '../../shared/splits.ts';

/** `<column> IN ('a', 'b')` for the split values of `selection`; null when there is no selection. */
export function splitCondition(column: string, selection: string | undefined): string | null {
  if (selection === undefined) return null;
  return `${column} IN (${splitValues(selection).map((v) => `'${v.replaceAll("'", "''")}'`).join(', ')})`;
}
