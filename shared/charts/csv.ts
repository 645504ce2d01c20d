/**
 * CSV of a figure's data (RFC 4180): comma-separated, CRLF line ends, a field quoted when it holds a comma,
 * quote, CR or LF, quotes doubled. Model and run names come from logs, so a text cell starting with
 * = + - @ (or a tab / CR) would run as a formula in a spreadsheet; such cells get a leading apostrophe
 * (OWASP's CSV-injection guard). A spreadsheet set to split on `;` (most of Europe) or `|` splits inside our
 * cells, quoted or not, so a formula character after any of , ; | (spaces or quotes between) gets the same
 * apostrophe: `x;=HYPERLINK(…)` is written `x;'=HYPERLINK(…)` (issue 38). Numbers are written as numbers, so
 * negative values stay negative. Control, bidi and invisible characters in text (an ESC, U+009B, U+202E,
 * U+200B, a line feed in a name) are written as the visible escapes of shared/displayText.ts (`\u001b`), the
 * same a terminal shows: a CSV opened in a terminal or a spreadsheet shows them and obeys none.
 *
 * Numbers are rounded to the precision they carry, so a sum of floats reads 0.3, not 0.30000000000000004: a
 * column named for money (cost, usd, price) to 6 decimals (a cheap turn costs $0.000096), any other to 4
 * (rates, shares, scores, intervals); a value too small for that keeps 4 significant digits instead of
 * becoming 0.
 */
import { visibleText } from '../displayText.ts';

export type CsvValue = string | number | boolean | null | undefined;

const MONEY = /cost|usd|price/i;
/** A formula character where a spreadsheet splitting on , ; or | would start a cell. */
const AFTER_SEPARATOR = /([,;|][ "]*)([=+\-@])/g;

/** Decimals kept in a column: money to 6, everything else to 4. */
export function csvDecimals(column: string): number {
  return MONEY.test(column) ? 6 : 4;
}

/** A number as written in a column of `decimals` places; integers stay as they are. */
export function roundForCsv(x: number, decimals: number): number {
  if (!Number.isFinite(x) || Number.isInteger(x)) return x;
  const rounded = Number(x.toFixed(decimals));
  return rounded === 0 ? Number(x.toPrecision(4)) : rounded;
}

function cell(value: CsvValue, decimals: number): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(roundForCsv(value, decimals)) : '';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  const text = visibleText(value);
  const guarded = (/^[=+\-@\t\r]/.test(text) ? `'${text}` : text).replace(AFTER_SEPARATOR, "$1'$2");
  return /[",\r\n]/.test(guarded) ? `"${guarded.replaceAll('"', '""')}"` : guarded;
}

/** A CSV document with a header row; every row has the header's columns. */
export function toCsv(header: string[], rows: CsvValue[][]): string {
  const decimals = header.map(csvDecimals);
  return [header, ...rows].map((r) => r.map((v, i) => cell(v, decimals[i] ?? 4)).join(',')).join('\r\n') + '\r\n';
}

/** A cell `toCsv` writes for a number, a boolean or nothing: not text, so a text pass leaves it alone. */
const NOT_TEXT = /^(?:-?(?:\d+(?:\.\d+)?|\.\d+)(?:e[+-]?\d+)?|true|false|)$/i;

/**
 * `csv` (as `toCsv` writes it) with every text cell passed through `map` (a redaction): the header row, numbers,
 * booleans and empty cells stay as they are, a quoted cell is mapped inside its quotes and quoted again. For a CSV
 * the window received whole from the core, where the values it came from are no longer at hand.
 */
export function mapCsvTextCells(csv: string, map: (text: string) => string): string {
  let out = '';
  let i = 0;
  let header = true;
  while (i < csv.length) {
    let cell: string;
    let quoted = false;
    if (csv[i] === '"') {
      quoted = true;
      let j = i + 1;
      cell = '';
      for (;;) {
        const q = csv.indexOf('"', j);
        if (q < 0) {
          cell += csv.slice(j);
          j = csv.length;
          break;
        }
        cell += csv.slice(j, q);
        if (csv[q + 1] === '"') {
          cell += '"';
          j = q + 2;
        } else {
          j = q + 1;
          break;
        }
      }
      i = j;
    } else {
      const comma = csv.indexOf(',', i);
      const eol = csv.indexOf('\r\n', i);
      const end = Math.min(comma < 0 ? csv.length : comma, eol < 0 ? csv.length : eol);
      cell = csv.slice(i, end);
      i = end;
    }
    const mapped = header || NOT_TEXT.test(cell) ? cell : map(cell);
    out += quoted || /[",\r\n]/.test(mapped) ? `"${mapped.replaceAll('"', '""')}"` : mapped;
    if (csv.startsWith('\r\n', i)) {
      out += '\r\n';
      i += 2;
      header = false;
    } else if (csv[i] === ',') {
      out += ',';
      i += 1;
    }
  }
  return out;
}
