/**
 * What a command's failure is: the user's mistake (one line, exit 1) or our bug (exit 2, with its stack).
 * Loaded by main.ts only when a command fails otherwise than with a UsageError or a wrong flag, as it imports
 * the modules whose error types it knows.
 */
import { databaseErrorOf, SchemaError } from '../db/database.ts';
import { ImportError } from '../importers/types.ts';
import { NotFoundError } from '../services/serviceErrors.ts';
import { StoreError, StoreUrlError } from '../store/storeUrl.ts';
import { UsageError } from './common.ts';

export type Failure = { kind: 'user' | 'bug'; message: string };

export function failureOf(caught: unknown, dbPath: string | undefined): Failure {
  // SQLite's damage and lock errors, met on any query, are the file's state, not our bug (issue 16).
  const e = dbPath === undefined ? caught : databaseErrorOf(caught, dbPath);
  if (e instanceof UsageError || e instanceof ImportError || e instanceof NotFoundError || e instanceof SchemaError || e instanceof StoreError || e instanceof StoreUrlError) {
    return { kind: 'user', message: e.message };
  }
  return { kind: 'bug', message: e instanceof Error ? (e.stack ?? e.message) : String(e) };
}
