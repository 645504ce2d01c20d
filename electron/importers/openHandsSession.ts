/**
 * OpenHands server sessions, as its file store keeps them: `sessions/<id>/` (or `users/<user>/conversations/<id>/`)
 * holding `metadata.json` (the conversation's id, title, model and running totals), `events/<n>.json` (one event
 * per file, n from 0) and `event_cache/<start>-<end>.json` (the same events again in pages of 25, written once a
 * page is full, so the newest events are never in it).
 *
 * A session is read from its `metadata.json`, the one file that names it and changes whenever the session grows
 * (so a re-import after more events is not skipped as already imported). The events are read from `events/`, all
 * of them in id order; the cache pages are never read (they are sidecars).
 */
import { readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import { MAX_COST_USD, MAX_TOKENS, type CanonicalEpisode } from '../../shared/canonical.ts';
import { decodeJson, failAt, MAX_JSON_DOCUMENT_BYTES, parseJson, readTextFile } from './jsonDocument.ts';
import { OpenHandsEvent } from './openHandsEvents.ts';
import { ImportError, type ImportContext } from './types.ts';

const tokenCount = z.number().int().nonnegative().max(MAX_TOKENS);

/** `ConversationMetadata` as the file store writes it; fields of other versions are let through. */
export const SessionMetadata = z.looseObject({
  conversation_id: z.string().min(1).max(300),
  title: z.string().max(1000).nullish(),
  selected_repository: z.string().max(300).nullish(),
  trigger: z.string().max(100).nullish(),
  created_at: z.string().max(100).nullish(),
  llm_model: z.string().max(300).nullish(),
  accumulated_cost: z.number().nonnegative().max(MAX_COST_USD).nullish(),
  prompt_tokens: tokenCount.nullish(),
  completion_tokens: tokenCount.nullish(),
});
export type SessionMetadata = z.infer<typeof SessionMetadata>;

/** Event files `<n>.json`; cache pages `<start>-<end>.json`. */
export const EVENT_FILE = /^(\d+)\.json$/;
export const CACHE_PAGE = /^\d+-\d+\.json$/;

/** What the head of a `metadata.json` must hold to be a session's: the conversation id and a field only it has. */
export function isSessionMetadata(keys: readonly string[], fileName: string): boolean {
  return (
    fileName === 'metadata.json' &&
    keys.includes('conversation_id') &&
    ['selected_repository', 'last_updated_at', 'accumulated_cost', 'llm_model'].some((k) => keys.includes(k))
  );
}

export interface Session {
  metadata: SessionMetadata;
  events: OpenHandsEvent[];
}

/** Reads `metadata.json` and every event file beside it. Throws ImportError naming the file and line at fault. */
export function readSession(file: string, ctx: ImportContext): Session {
  const text = readTextFile(file, ctx.onBytes);
  const fail = failAt(file);
  const metadata = decodeJson(SessionMetadata, parseJson(text, fail), text, [], fail);
  const dir = join(dirname(file), 'events');
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    throw new ImportError(file, 1, `no events folder beside it (${basename(dirname(file))}/events/): the session's events are missing`);
  }
  const numbered: { n: number; name: string }[] = [];
  for (const entry of entries) {
    const m = EVENT_FILE.exec(entry.name);
    // Symbolic links are not followed inside a folder, as a folder import does.
    if (m && entry.isFile()) numbered.push({ n: Number(m[1]), name: entry.name });
  }
  numbered.sort((a, b) => a.n - b.n);
  if (numbered.length === 0) throw new ImportError(file, 1, 'the events folder beside it holds no event files (<n>.json)');

  const events: OpenHandsEvent[] = [];
  let bytes = 0;
  let expected = 0;
  const gaps: string[] = [];
  for (const { n, name } of numbered) {
    if (n !== expected) gaps.push(n === expected + 1 ? String(expected) : `${expected}–${n - 1}`);
    expected = n + 1;
    const path = join(dir, name);
    const eventText = readTextFile(path, undefined, MAX_JSON_DOCUMENT_BYTES - bytes);
    bytes += eventText.length;
    const eventFail = failAt(path);
    const event = decodeJson(OpenHandsEvent, parseJson(eventText, eventFail), eventText, [], eventFail);
    if (event.id != null && event.id !== n) throw new ImportError(path, 1, `event id ${event.id} in the file of event ${n}`);
    events.push(event);
  }
  if (gaps.length > 0) ctx.warn(`${basename(dirname(file))}: event file(s) ${gaps.join(', ')} missing from events/; read without them`);
  return { metadata, events };
}

/**
 * The conversation's running totals from `metadata.json`. A conversation whose totals were never written holds the
 * defaults (all 0): that is "not recorded", so no totals rather than totals of 0.
 */
export function sessionTotals(m: SessionMetadata): CanonicalEpisode['log_totals'] {
  const cost = m.accumulated_cost ?? null;
  const tin = m.prompt_tokens ?? null;
  const tout = m.completion_tokens ?? null;
  if (!cost && !tin && !tout) return null;
  return { source: 'metadata.json', cost_usd: cost, tokens: { in: tin, out: tout } };
}
