/**
 * CSV of a figure's data (RFC 4180): comma-separated, CRLF line ends, a field quoted when it holds a comma,
 * quote, CR or LF, quotes doubled. Model and run names come from logs, so a text cell starting with
 * = + - @ (or a tab / CR) would run as a formula in a spreadsheet; such cells get a leading apostrophe
 * (OWASP's CSV-injection guard). Numbers are written as numbers, so negative values stay negative. Control,
 * bidi and invisible characters in text (an ESC, U+009B, U+202E, U+200B, a line feed in a name) are written
 * as the visible escapes of shared/displayText.ts (`\u001b`), the same a terminal shows: a CSV opened in a
 * terminal or a spreadsheet shows them and obeys none.
 */
import { visibleText } from '../displayText.ts';

export type CsvValue = string | number | boolean | null | undefined;

function cell(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  const text = visibleText(value);
  const guarded = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(guarded) ? `"${guarded.replaceAll('"', '""')}"` : guarded;
}

/** A CSV document with a header row; every row has the header's columns. */
export function toCsv(header: string[], rows: CsvValue[][]): string {
  return [header, ...rows].map((r) => r.map(cell).join(',')).join('\r\n') + '\r\n';
}
