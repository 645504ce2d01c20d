/**
 * What every `routelens` subcommand shares: the command shape, the user-error type (exit 1, no stack),
 * output helpers and flag checks. Each command lives in its own module beside this one (import.ts, train.ts,
 * …) and is registered, with its one-line summary, in main.ts.
 */
import type { ParseArgsConfig } from 'node:util';
import { existsSync } from 'node:fs';
import { visibleLines } from '../../shared/displayText.ts';

/** The user's input is wrong: printed as one line on stderr, exit code 1. */
export class UsageError extends Error {}

/** A command's code, loaded when it runs or prints its usage; its name and summary are in main.ts. */
export interface Command {
  usage: string;
  options: NonNullable<ParseArgsConfig['options']>;
  allowPositionals?: boolean;
  run(values: Record<string, unknown>, positionals: string[]): Promise<number>;
}

/**
 * Every line the CLI prints goes through `visibleLines` (shared/displayText.ts): names and messages quoted
 * from logs can hold ESC, C1 CSI, BEL or bidi controls, and those are printed as escapes (`\u001b`), never
 * as commands to the terminal. Line feeds stay, so tables and help print as they are; JSON output stays
 * the same JSON (the escapes are JSON's). Where a name sits in a line, callers use `visibleText` so a line
 * feed inside it is escaped too.
 */
export const out = (s: string): void => void process.stdout.write(`${visibleLines(s)}\n`);
export const err = (s: string): void => void process.stderr.write(`${visibleLines(s)}\n`);

export function requireDb(values: Record<string, unknown>, mustExist = true): string {
  const db = values.db;
  if (typeof db !== 'string' || db === '') throw new UsageError('--db FILE is required');
  if (mustExist && !existsSync(db)) throw new UsageError(`${db}: no such database (create one with \`routelens import PATH --db ${db}\`)`);
  return db;
}

/** Prints one JSON document on stdout; returns exit code 0. */
export function print(value: unknown): number {
  out(JSON.stringify(value));
  return 0;
}

/** An unknown --run name is the user's mistake, not ours. */
export function withRuns<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof RangeError) throw new UsageError(e.message);
    throw e;
  }
}

export function money(x: number): string {
  return x >= 1 ? `$${x.toFixed(2)}` : `$${x.toFixed(4)}`;
}

/** A flag that must be a whole number in [min, max] when given. */
export function intFlag(values: Record<string, unknown>, name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const raw = values[name];
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`--${name} must be a whole number from ${min} to ${max}`);
  return n;
}
