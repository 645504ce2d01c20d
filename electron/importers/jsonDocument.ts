/**
 * Whole-document JSON for importers whose formats are one JSON object per file (SWE-agent `.traj`,
 * Inspect logs): reading with a size cap, strict UTF-8, and errors that carry the 1-based line of the
 * problem — from the parser's position for syntax errors, and by locating the offending JSON path in the
 * text for schema errors (a scan that runs only when something is wrong).
 */
import { readFileSync, statSync } from 'node:fs';
import type { z } from 'zod';
import { describeIssue } from '../../shared/canonical.ts';
import { JsonSyntaxError, nestedDeeperThan, parseLocatedJson } from './locatedJson.ts';
import { ImportError } from './types.ts';

/** Builds the error for a problem at `line` (callers choose how an archive member is named in it). */
export type Fail = (line: number, reason: string) => ImportError;

export type JsonPath = readonly PropertyKey[];

/**
 * V8 cannot hold a string longer than 2^29 − 24 characters (~512 MiB), so one JSON document is capped below
 * that; the cap is a clear error instead of a crash inside the parser.
 */
export const MAX_JSON_DOCUMENT_BYTES = 500 * 1024 * 1024;

export const failAt = (file: string): Fail => (line, reason) => new ImportError(file, line, reason);

/** Decodes UTF-8 strictly (a BOM is dropped); invalid bytes are an error, not a silent U+FFFD. */
export function decodeUtf8(bytes: Uint8Array, fail: Fail): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw fail(1, 'not valid UTF-8');
  }
}

/** Reads a whole file as text, refusing files over `maxBytes` before reading them. */
export function readTextFile(file: string, onBytes?: (bytes: number) => void, maxBytes = MAX_JSON_DOCUMENT_BYTES): string {
  const st = statSync(file);
  // A named pipe or a device (/dev/zero) would be read forever: refused before it is opened.
  if (!st.isFile()) throw new ImportError(file, 1, 'not a regular file');
  const size = st.size;
  if (size > maxBytes) {
    throw new ImportError(file, 1, `file is ${size} bytes; one JSON document is read whole and is limited to ${maxBytes} bytes`);
  }
  const bytes = readFileSync(file);
  onBytes?.(bytes.length);
  return decodeUtf8(bytes, failAt(file));
}

/** 1-based line of a character index. */
export function lineAt(text: string, index: number): number {
  let line = 1;
  const end = Math.min(index, text.length);
  for (let i = text.indexOf('\n'); i !== -1 && i < end; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/**
 * Nesting allowed in one document. JSON.parse takes any depth, but JSON.stringify (tool-call arguments are
 * re-serialised as text) overflows the stack at ~8,000 levels; real logs stay far below this.
 */
export const MAX_JSON_DOCUMENT_DEPTH = 1000;

/** Index of the bracket that opens level `maxDepth + 1` (strings skipped), or -1. Runs only on the error path. */
function tooDeepAt(text: string, maxDepth: number): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      for (i++; i < text.length && text.charCodeAt(i) !== 34; i++) if (text.charCodeAt(i) === 92) i++;
    } else if (c === 123 || c === 91) {
      if (++depth > maxDepth) return i;
    } else if (c === 125 || c === 93) depth--;
  }
  return -1;
}

/** The line of a syntax error V8 reported without a position (`Unexpected token 'a', "…" is not valid JSON`). */
function syntaxErrorLine(text: string): number {
  try {
    parseLocatedJson(text);
  } catch (err) {
    if (err instanceof JsonSyntaxError) return err.line;
  }
  return lineAt(text, text.length);
}

/** Parses one JSON document; a syntax error names its line (V8 reports a character position, or else we find it). */
export function parseJson(text: string, fail: Fail): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const lineCol = /\(line (\d+) column \d+\)/.exec(message);
    const position = /at position (\d+)/.exec(message);
    const line = lineCol ? Number(lineCol[1]) : position ? lineAt(text, Number(position[1])) : syntaxErrorLine(text);
    throw fail(line, `invalid JSON: ${message.replace(/\s*\(line \d+ column \d+\)/, '')}`);
  }
  if (nestedDeeperThan(value, MAX_JSON_DOCUMENT_DEPTH)) {
    throw fail(lineAt(text, tooDeepAt(text, MAX_JSON_DOCUMENT_DEPTH)), `JSON nested deeper than ${MAX_JSON_DOCUMENT_DEPTH} levels`);
  }
  return value;
}

const isSpace = (c: number): boolean => c === 32 || c === 10 || c === 13 || c === 9;

/**
 * The line where the value at `path` starts in a JSON text that parses (the deepest existing prefix of
 * the path when the rest is missing). A single forward scan; used only to place an error.
 */
export function lineOfPath(text: string, path: JsonPath): number {
  const n = text.length;
  let pos = 0;
  const ws = (): void => {
    while (pos < n && isSpace(text.charCodeAt(pos))) pos++;
  };
  const skipString = (): void => {
    pos++;
    while (pos < n) {
      const c = text.charCodeAt(pos);
      if (c === 92) pos += 2;
      else if (c === 34) {
        pos++;
        return;
      } else pos++;
    }
  };
  const readKey = (): string => {
    const start = pos;
    skipString();
    try {
      return String(JSON.parse(text.slice(start, pos)));
    } catch {
      return '';
    }
  };
  const skipValue = (): void => {
    ws();
    const c = text[pos];
    if (c === '"') return skipString();
    if (c === '{' || c === '[') {
      let depth = 0;
      while (pos < n) {
        const ch = text[pos];
        if (ch === '"') {
          skipString();
          continue;
        }
        if (ch === '{' || ch === '[') depth++;
        else if (ch === '}' || ch === ']') {
          depth--;
          if (depth === 0) {
            pos++;
            return;
          }
        }
        pos++;
      }
      return;
    }
    while (pos < n && !/[,}\]\s]/.test(text[pos] ?? '')) pos++;
  };
  /** Moves `pos` to the value of `segment` inside the container at `pos`; false when it is not there. */
  const enter = (segment: PropertyKey): boolean => {
    ws();
    const open = text[pos];
    if (open === '{') {
      const want = String(segment);
      pos++;
      for (;;) {
        ws();
        if (text[pos] !== '"') return false;
        const key = readKey();
        ws();
        pos++; // ':'
        if (key === want) return true;
        skipValue();
        ws();
        if (text[pos] !== ',') return false;
        pos++;
      }
    }
    if (open === '[' && typeof segment === 'number') {
      pos++;
      for (let i = 0; ; i++) {
        ws();
        if (text[pos] === ']' || pos >= n) return false;
        if (i === segment) return true;
        skipValue();
        ws();
        if (text[pos] !== ',') return false;
        pos++;
      }
    }
    return false;
  };
  let found = 0;
  for (const segment of path) {
    const before = pos;
    if (!enter(segment)) {
      pos = before;
      break;
    }
    found++;
  }
  ws();
  return lineAt(text, found === 0 ? 0 : pos);
}

/**
 * Decodes `value` (found at `at` inside `text`) with a schema; a mismatch names the JSON path and its line:
 * `samples[0].events[3].output.usage.input_tokens: expected number`.
 */
export function decodeJson<S extends z.ZodType>(schema: S, value: unknown, text: string, at: JsonPath, fail: Fail): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const full = [...at, ...(issue?.path ?? [])];
  const shown = full
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
    .join('');
  const message = issue?.message ?? describeIssue(parsed.error);
  throw fail(lineOfPath(text, full), shown ? `${shown}: ${message}` : message);
}
