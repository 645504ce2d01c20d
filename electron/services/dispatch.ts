/**
 * The boundary every transport goes through (IPC, HTTP, tests): checks the call name against the contract,
 * validates the payload with its zod schema, runs the service, and turns failures into an `ApiError`
 * that says whose fault it was. Transports only move bytes.
 */
import { z } from 'zod';
import { apiContract, type ApiError, type ApiName, type RouteLensApi } from '../../shared/api.ts';
import { describeIssue } from '../../shared/canonical.ts';
import { DamagedDatabaseError, databaseErrorOf, isBusyError } from '../db/database.ts';
import { FigureTooLargeError } from '../export/figureLimits.ts';
import { InputError, NotFoundError } from './serviceErrors.ts';

export type DispatchResult = { ok: true; value: unknown } | { ok: false; error: ApiError };


export function isApiName(name: unknown): name is ApiName {
  return typeof name === 'string' && Object.hasOwn(apiContract, name);
}

export async function dispatch(api: RouteLensApi, name: unknown, payload: unknown): Promise<DispatchResult> {
  if (!isApiName(name)) return { ok: false, error: { kind: 'input', message: `unknown call ${String(name).slice(0, 80)}` } };
  const parsed = apiContract[name].input.safeParse(payload ?? {});
  if (!parsed.success) return { ok: false, error: { kind: 'input', message: `${name}: ${describeIssue(parsed.error)}` } };
  try {
    const call = api[name] as (input: unknown) => Promise<unknown>;
    return { ok: true, value: await call(parsed.data) };
  } catch (err) {
    if (err instanceof NotFoundError) return { ok: false, error: { kind: 'not_found', message: err.message } };
    if (err instanceof InputError || err instanceof FigureTooLargeError) return { ok: false, error: { kind: 'input', message: `${name}: ${err.message}` } };
    if (err instanceof z.ZodError) return { ok: false, error: { kind: 'input', message: `${name}: ${describeIssue(err)}` } };
    // Writes take turns (writeQueue.ts) and reads never wait, so this should not happen; if it does, it is a
    // "try again", never an internal error.
    if (isBusyError(err)) {
      return { ok: false, error: { kind: 'busy', message: `${name}: the database is busy with another write (an import?); try again when it has finished` } };
    }
    // Damage a query meets after the open's checks (a bad page in the middle of a big file) is the file's fault.
    const known = databaseErrorOf(err, 'the database');
    if (known instanceof DamagedDatabaseError) return { ok: false, error: { kind: 'damaged', message: `${name}: ${known.message}` } };
    return { ok: false, error: { kind: 'internal', message: err instanceof Error ? err.message : String(err) } };
  }
}
