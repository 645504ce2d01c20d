/**
 * One line of a Claude Code session transcript, checked where RouteLens reads it. Only the line types that
 * carry what we import (`user`, `assistant`, `system`) are validated; the many others (`progress`, hook and
 * file-history lines, queue operations, titles) are passed over without a look inside, so a change in them
 * never rejects a session and they cost no more than their JSON.parse.
 */
import { z } from 'zod';
import { MAX_TOKENS } from '../../shared/canonical.ts';
import { parseJsonLine } from './lineReader.ts';
import { ImportError } from './types.ts';

const tokenCount = z
  .number()
  .int()
  .nonnegative()
  .max(MAX_TOKENS, `over the limit of ${MAX_TOKENS.toLocaleString('en-US')} tokens for one call`);

const Usage = z.object({
  input_tokens: tokenCount.nullish(),
  output_tokens: tokenCount.nullish(),
  cache_read_input_tokens: tokenCount.nullish(),
  cache_creation_input_tokens: tokenCount.nullish(),
  /** The cache writes by lifetime (Claude Code 1.0.80+); their sum is cache_creation_input_tokens. */
  cache_creation: z
    .object({ ephemeral_5m_input_tokens: tokenCount.nullish(), ephemeral_1h_input_tokens: tokenCount.nullish() })
    .nullish(),
});
export type Usage = z.infer<typeof Usage>;

const AssistantBlock = z.object({
  type: z.string(),
  text: z.string().nullish(),
  thinking: z.string().nullish(),
  id: z.string().max(300).nullish(),
  name: z.string().nullish(),
  input: z.unknown().optional(),
});
export type AssistantBlock = z.infer<typeof AssistantBlock>;

const AssistantMessage = z.object({
  // Required of model calls only (below): the local `<synthetic>` messages need not have one.
  id: z.string().min(1).max(300).nullish(),
  model: z.string(),
  content: z.union([z.string(), z.array(AssistantBlock)]).nullish(),
  usage: Usage.nullish(),
});
export type AssistantMessage = z.infer<typeof AssistantMessage>;

const ResultPart = z.object({ type: z.string(), text: z.string().nullish() });
const UserBlock = z.object({
  type: z.string(),
  text: z.string().nullish(),
  tool_use_id: z.string().nullish(),
  content: z.union([z.string(), z.array(ResultPart)]).nullish(),
  is_error: z.boolean().nullish(),
});
export type UserBlock = z.infer<typeof UserBlock>;

const UserMessage = z.object({ content: z.union([z.string(), z.array(UserBlock)]) });
export type UserMessage = z.infer<typeof UserMessage>;

/** Fields every message line may carry; all optional, as older versions wrote fewer of them. */
const Envelope = z.object({
  type: z.string(),
  sessionId: z.string().max(300).nullish(),
  uuid: z.string().max(300).nullish(),
  /** The API request of an assistant line: a response copied into a sidechain keeps it. */
  requestId: z.string().max(300).nullish(),
  parentUuid: z.string().max(300).nullish(),
  timestamp: z.string().max(100).nullish(),
  cwd: z.string().max(4096).nullish(),
  version: z.string().max(100).nullish(),
  isSidechain: z.boolean().nullish(),
  isMeta: z.boolean().nullish(),
  isCompactSummary: z.boolean().nullish(),
  isApiErrorMessage: z.boolean().nullish(),
  agentId: z.string().max(300).nullish(),
  subtype: z.string().nullish(),
  logicalParentUuid: z.string().max(300).nullish(),
  /** A system line's text (a local command's output); other line types carry `message` instead. */
  content: z.unknown().optional(),
  compactMetadata: z.object({ trigger: z.string().nullish(), preTokens: tokenCount.nullish() }).nullish(),
});
export type Envelope = z.infer<typeof Envelope>;

export type SessionLine =
  | { type: 'assistant'; env: Envelope; message: AssistantMessage }
  | { type: 'user'; env: Envelope; message: UserMessage; agentId: string | null }
  | { type: 'system'; env: Envelope }
  /** Anything else: read for its place in the file only. */
  | { type: 'other' };

const MESSAGE_TYPES = new Set(['user', 'assistant', 'system']);

/** The issue to report: inside a union (string or blocks), the branch that got furthest, not "Invalid input". */
function innermost(issue: z.core.$ZodIssue): { path: PropertyKey[]; message: string } {
  if (issue.code === 'invalid_union' && issue.errors.length > 0) {
    const branches = issue.errors.map((e) => e[0]).filter((e): e is z.core.$ZodIssue => e !== undefined);
    const deepest = branches.reduce((a, b) => (b.path.length > a.path.length ? b : a));
    const inner = innermost(deepest);
    return { path: [...issue.path, ...inner.path], message: inner.message };
  }
  return { path: issue.path, message: issue.message };
}

function check<T>(schema: z.ZodType<T>, value: unknown, file: string, lineNo: number, prefix: string): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const first = r.error.issues[0];
  const issue = first ? innermost(first) : { path: [], message: 'invalid' };
  const path = [prefix, ...issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : String(p)))]
    .filter((p) => p !== '')
    .join('.')
    .replace(/\.\[/g, '[');
  throw new ImportError(file, lineNo, `${path === '' ? '' : `${path}: `}${issue.message}`);
}

/** The agent a Task/Agent tool result names: `toolUseResult.agentId` (2.x) when the result is an object. */
function agentIdOf(toolUseResult: unknown): string | null {
  if (typeof toolUseResult !== 'object' || toolUseResult === null) return null;
  const id = (toolUseResult as { agentId?: unknown }).agentId;
  return typeof id === 'string' && id !== '' ? id : null;
}

export function parseSessionLine(file: string, lineNo: number, text: string): SessionLine | null {
  if (text.trim() === '') return null;
  const value = parseJsonLine(file, lineNo, text);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ImportError(file, lineNo, 'expected one JSON object per line (a Claude Code transcript entry)');
  }
  const raw = value as { type?: unknown; message?: unknown; toolUseResult?: unknown };
  if (typeof raw.type !== 'string') throw new ImportError(file, lineNo, 'type: expected a string');
  if (!MESSAGE_TYPES.has(raw.type)) return { type: 'other' };
  const env = check(Envelope, value, file, lineNo, '');
  if (raw.type === 'assistant') {
    const message = check(AssistantMessage, raw.message, file, lineNo, 'message');
    if (message.id == null && message.model !== SYNTHETIC_MODEL) {
      throw new ImportError(file, lineNo, 'message.id: missing (it groups the lines of one model response)');
    }
    return { type: 'assistant', env, message };
  }
  if (raw.type === 'user') {
    const message = check(UserMessage, raw.message, file, lineNo, 'message');
    return { type: 'user', env, message, agentId: agentIdOf(raw.toolUseResult) };
  }
  return { type: 'system', env };
}

/**
 * Claude Code writes model "<synthetic>" for messages it makes up locally (API errors, "No response
 * requested.", interruptions): no model was called, so they are not turns.
 */
export const SYNTHETIC_MODEL = '<synthetic>';

/**
 * Numbers the model calls of a session in the order they appear: one per `message.id`, however many lines
 * (one per content block) the response was written as. Shared by the importer and the parent-file scan, so
 * a subagent's `parent.t` is the very turn the parent episode has.
 */
export class TurnIndex {
  private readonly byId = new Map<string, number>();

  /** The turn of this assistant line, or null when it is not a model call. */
  turnOf(message: AssistantMessage): number | null {
    if (message.model === SYNTHETIC_MODEL || message.id == null) return null;
    let t = this.byId.get(message.id);
    if (t === undefined) {
      t = this.byId.size;
      this.byId.set(message.id, t);
    }
    return t;
  }

  get count(): number {
    return this.byId.size;
  }
}
