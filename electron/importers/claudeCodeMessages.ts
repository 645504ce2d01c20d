/**
 * The messages of a Claude Code session that are neither model responses nor tool results, as canonical
 * conversation messages (turn `inputs`, `final_messages`): who wrote each one, told from how Claude Code
 * writes it.
 *
 * - `isCompactSummary` user lines are the summary that replaces the conversation after a compaction: `summary`.
 * - `isMeta` user lines are text Claude Code wrote in the user's place (a skill's or command's expanded prompt,
 *   hook context, the caveat before local command output): `system`.
 * - User text opening with a tag or notice Claude Code writes itself (`<local-command-stdout>`,
 *   `<system-reminder>`, `<task-notification>`, the local-command caveat, `[Request interrupted by user…]`) is
 *   injected, not typed: `system`. Lines written before `isMeta` existed (1.0) are told apart this way only.
 * - Any other user text is the person typing, slash commands included (`<command-name>/mcp</command-name>`:
 *   they typed it, and it reaches the model): `user`.
 * - `system` lines of subtype `local_command` hold a local command's output (2.x): `system`. Other system
 *   lines (timings, hook summaries, API errors, compaction markers) never reach the model and are not kept here.
 * - `<synthetic>` assistant lines are text Claude Code showed as the assistant's without a model call ("No
 *   response requested.", an API error): `assistant`.
 */
import type { ConversationMessage } from '../../shared/canonical.ts';
import type { AssistantMessage, Envelope, UserMessage } from './claudeCodeLines.ts';

const INJECTED = /^\s*(<local-command-|<system-reminder>|<task-notification>|Caveat: The messages below were generated|\[Request interrupted by user)/;

function blocksText(blocks: readonly { type: string; text?: string | null }[]): string {
  return blocks.map((b) => (b.type === 'text' ? (b.text ?? '') : `[${b.type}]`)).join('\n');
}

/** The text of a user line other than its tool results; null when it has none. */
function userText(message: UserMessage): string | null {
  const c = message.content;
  const text = typeof c === 'string' ? c : blocksText(c.filter((b) => b.type !== 'tool_result'));
  return text.trim() === '' ? null : text;
}

export function userMessageOf(env: Envelope, message: UserMessage): ConversationMessage | null {
  const text = userText(message);
  if (text === null) return null;
  const role = env.isCompactSummary === true ? 'summary' : env.isMeta === true || INJECTED.test(text) ? 'system' : 'user';
  return { role, text, timestamp: env.timestamp ?? null };
}

export function systemMessageOf(env: Envelope): ConversationMessage | null {
  if (env.subtype !== 'local_command' || typeof env.content !== 'string' || env.content.trim() === '') return null;
  return { role: 'system', text: env.content, timestamp: env.timestamp ?? null };
}

export function syntheticMessageOf(env: Envelope, message: AssistantMessage): ConversationMessage | null {
  const c = message.content;
  const text = c == null ? '' : typeof c === 'string' ? c : blocksText(c);
  return text.trim() === '' ? null : { role: 'assistant', text, timestamp: env.timestamp ?? null };
}
