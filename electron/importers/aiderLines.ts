/**
 * The single lines of an Aider chat history that carry facts: session starts, the model announcements of
 * the session header, and the `> Tokens: … Cost: …` line Aider prints after each model reply. Lines end with
 * two spaces (markdown hard breaks), stripped before matching.
 */
import { MAX_COST_USD, MAX_TOKENS } from '../../shared/canonical.ts';

export const SESSION_START = /^# aider chat started at (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)/;

/**
 * A model name as announced: the first word, without the decorations some versions glue to it
 * (`claude-3-haiku-20240307⚡`).
 */
function modelName(word: string): string {
  return word.replace(/[^\w.:/@+-]+$/u, '');
}

/** `♾️ diff` → `diff`. */
const editFormat = (s: string): string => s.replace(/^[^\w]+/u, '').trim();

export type HeaderFact =
  | { kind: 'main'; model: string; editFormat: string | null; weak?: string }
  | { kind: 'editor'; model: string }
  | { kind: 'weak'; model: string }
  | { kind: 'version'; version: string }
  | { kind: 'repo'; path: string };

export function headerFact(line: string): HeaderFact | null {
  let m = /^> Models: (\S+) with (.+?) edit format, weak model (\S+)/.exec(line);
  if (m) return { kind: 'main', model: modelName(m[1] ?? ''), editFormat: editFormat(m[2] ?? ''), weak: modelName(m[3] ?? '') };
  m = /^> (?:Main model|Model): (\S+)(?: with (.+?) edit format)?/.exec(line);
  if (m) return { kind: 'main', model: modelName(m[1] ?? ''), editFormat: m[2] ? editFormat(m[2]) : null };
  m = /^> Editor model: (\S+)/.exec(line);
  if (m) return { kind: 'editor', model: modelName(m[1] ?? '') };
  m = /^> Weak model: (\S+)/.exec(line);
  if (m) return { kind: 'weak', model: modelName(m[1] ?? '') };
  m = /^> Aider v(\S+)/.exec(line);
  if (m) return { kind: 'version', version: m[1] ?? '' };
  m = /^> Git repo: (.+?) with \d[\d,]* files/.exec(line);
  if (m) return { kind: 'repo', path: m[1] ?? '' };
  return null;
}

export class AiderValueError extends Error {}

/** `12,345` / `12k` / `1.2k`, as Aider formats token counts. */
function tokenCount(text: string): number {
  const m = /^([\d,]*\.?\d+)(k?)$/.exec(text);
  if (!m) throw new AiderValueError(`unreadable token count "${text}"`);
  const n = Math.round(Number((m[1] ?? '').replace(/,/g, '')) * (m[2] ? 1000 : 1));
  if (!Number.isFinite(n) || n > MAX_TOKENS) throw new AiderValueError(`token count ${text} is over the limit of ${MAX_TOKENS.toLocaleString('en-US')}`);
  return n;
}

export interface TokensLine {
  sent: number;
  received: number;
  cacheWrite: number | null;
  cacheHit: number | null;
}

/**
 * `> Tokens: 5,244 sent, 1,024 cache write, 2,048 cache hit, 604 received.` (older: `N cached`). Null when the
 * line is a Tokens line Aider never wrote in this shape; throws AiderValueError for an impossible number.
 */
export function tokensLine(line: string): TokensLine | null {
  const body = /^> Tokens: (.*?)\.(?:\s|$)/.exec(line)?.[1];
  if (body === undefined) return null;
  const out: Partial<TokensLine> = { cacheWrite: null, cacheHit: null };
  for (const part of body.split(/,\s+(?=[\d.,]+k?\s)/)) {
    const m = /^(\S+) (sent|received|cache write|cache hit|cached)\b/.exec(part.trim());
    if (!m) continue;
    const n = tokenCount(m[1] ?? '');
    if (m[2] === 'sent') out.sent = n;
    else if (m[2] === 'received') out.received = n;
    else if (m[2] === 'cache write') out.cacheWrite = n;
    else out.cacheHit = n;
  }
  if (out.sent === undefined || out.received === undefined) return null;
  return out as TokensLine;
}

/** `Cost: $0.02 message, $0.05 session.` (also `request`), on the Tokens line or the line after it. */
export function costOf(line: string): number | null | undefined {
  const m = /Cost: \$(\S+?) (?:message|request),/.exec(line);
  if (!m) return undefined;
  const usd = Number(m[1]);
  if (!Number.isFinite(usd) || usd < 0) throw new AiderValueError(`unreadable cost "$${m[1]}"`);
  if (usd > MAX_COST_USD) throw new AiderValueError(`cost $${m[1]} is over the limit of $${MAX_COST_USD.toLocaleString('en-US')}`);
  return usd;
}

/**
 * Aider's running total for the session, `$0.05 session` at the end of a Cost line (the Tokens line or the line
 * after it): kept by Aider itself, not summed from the lines, so it checks the turns' costs.
 */
export function sessionCostOf(line: string): number | undefined {
  const m = /Cost: .*?\$(\S+?) session\b/.exec(line);
  if (!m) return undefined;
  const usd = Number(m[1]);
  if (!Number.isFinite(usd) || usd < 0) throw new AiderValueError(`unreadable session cost "$${m[1]}"`);
  if (usd > MAX_COST_USD) throw new AiderValueError(`session cost $${m[1]} is over the limit of $${MAX_COST_USD.toLocaleString('en-US')}`);
  return usd;
}

/**
 * A line of a user message, as read (trailing spaces kept): Aider writes each line of what was typed as
 * `#### LINE` ending in a markdown hard break (two spaces), a blank line inside it as `####` and the two spaces,
 * and a blank line between two messages. A model's reply can hold a `#### Heading` too, but without the hard break
 * (7 such lines in the Aider author's history).
 */
export const isUserLine = (raw: string): boolean => /^####(?: .*)? {2}\r?$/.test(raw);

export const APPLIED_EDIT = /^> Applied edit to (.+)$/;
export const COMMIT = /^> Commit ([0-9a-f]{7,40})\b/;
/** Aider's own account of a reply whose edits it could not apply. */
export const EDIT_FAILED = /^> (The LLM did not conform to the edit format|# \d+ SEARCH\/REPLACE blocks? failed to match)/;
