/**
 * The format a file no importer claims looks most like (issue 34): "not a log RouteLens reads; closest: …" tells a
 * user whose log is a variant of a known format which one to compare it with, instead of a bare refusal.
 *
 * Detection itself stays positive-signature only (each importer's `detect`); this is only for the message, so it
 * may be fuzzy. The marks are the words each format's files are full of, kept here in one table rather than on
 * each importer because they serve no importer's own work.
 */
import type { Importer } from './types.ts';

/** Substrings typical of each format's first 64 KiB: JSON keys with their quotes, or a text format's markers. */
const MARKS: Record<string, readonly string[]> = {
  canonical: ['"schema"', '"routelens/v1"', '"episode_id"', '"turns"', '"outcome"'],
  'claude-code': ['"sessionId"', '"parentUuid"', '"isSidechain"', '"userType"', '"uuid"', '"requestId"'],
  'gemini-cli': ['"sessionId"', '"projectHash"', '"startTime"', '"lastUpdated"', '"gemini'],
  codex: ['"session_meta"', '"response_item"', '"event_msg"', '"turn_context"', '"payload"', '"token_count"'],
  'copilot-cli': ['"session.start"', '"assistant.message"', '"data"', '"parentId"', '"toolRequests"'],
  'mini-swe-agent': ['"messages"', '"info"', '"exit_status"', '"model_stats"', '"mini_version"', '"trajectory_format"'],
  'swe-agent': ['"trajectory"', '"history"', '"info"', '"thought"', '"observation"', '"environment"'],
  inspect: ['"eval"', '"samples"', '"results"', '"stats"', '"model_usage"', '"scores"'],
  otel: ['"resourceSpans"', '"scopeSpans"', '"traceId"', '"spanId"', 'gen_ai.', '"attributes"'],
  uno: ['<plan', '<subtask', '<route', '<obs', '<final_answer', '"transcript"'],
  openhands: ['"source"', '"action"', '"observation"', '"tool_call_metadata"', '"llm_metrics"', '"instruction"'],
  atif: ['"schema_version"', '"ATIF', '"session_id"', '"steps"', '"agent"'],
  aider: ['# aider chat started', '#### ', '> Tokens:', 'aider'],
  cline: ['"api_req_started"', '"say"', '"ask"', '"conversationHistoryIndex"', '"tool_use"', '"tool_result"'],
  opencode: ['"projectID"', '"sessionID"', '"step-finish"', '"providerID"', '"modelID"', '"parts"'],
};

/** Fewest marks a file must share with a format for that format to be named. */
const MIN_MARKS = 2;

/** The importer whose marks the head shares most (at least two), or null when it resembles none. */
export function closestFormat(head: string, importers: readonly Importer[]): Importer | null {
  let best: Importer | null = null;
  let bestScore = MIN_MARKS - 1;
  for (const imp of importers) {
    const marks = MARKS[imp.format];
    if (!marks) continue;
    let score = 0;
    for (const m of marks) if (head.includes(m)) score++;
    if (score > bestScore) {
      best = imp;
      bestScore = score;
    }
  }
  return best;
}

/** The sentence that ends a refusal or an "unknown format" line: which format it resembles and what that one reads. */
export function closestFormatHint(head: string, importers: readonly Importer[]): string {
  const near = closestFormat(head, importers);
  return near ? `closest: ${near.format} (${near.expects})` : 'it resembles none of them';
}
