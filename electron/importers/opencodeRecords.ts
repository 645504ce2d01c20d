/**
 * The records OpenCode (sst/opencode) writes, as far as RouteLens reads them: a session's info, its messages'
 * info (user or assistant) and the messages' parts. `opencode export` nests them in one document
 * (`{info, messages: [{info, parts}]}`); the storage folder keeps each in a file of its own, with the same
 * objects. Schemas check what the importer uses and let every other field through, so a newer OpenCode that
 * adds fields still imports; a field RouteLens reads with the wrong type is an error at its line.
 */
import { z } from 'zod';

const count = z.number().nonnegative();

/** Where a message's parts came from, so a bad value can be reported at its file and line. */
export interface Located<T> {
  value: T;
  where: () => { file: string; line: number };
}

export const SessionInfo = z
  .object({
    id: z.string().min(1),
    parentID: z.string().min(1).nullish(),
    title: z.string().nullish(),
    directory: z.string().nullish(),
    version: z.string().nullish(),
    time: z.object({ created: count.nullish() }).passthrough().nullish(),
  })
  .passthrough();
export type SessionInfo = z.infer<typeof SessionInfo>;

/**
 * Usage of one model call (a step-finish part) or, on an assistant message, of its last step: OpenCode
 * overwrites the message's tokens at each step and adds each step's cost to the message's cost.
 */
export const StepTokens = z
  .object({
    total: count.nullish(),
    input: count,
    output: count,
    reasoning: count.nullish(),
    cache: z.object({ read: count, write: count }).passthrough().nullish(),
  })
  .passthrough();
export type StepTokens = z.infer<typeof StepTokens>;

const time = z.object({ created: count.nullish(), completed: count.nullish() }).passthrough().nullish();

export const UserInfo = z
  .object({ role: z.literal('user'), id: z.string().min(1), time, agent: z.string().nullish() })
  .passthrough();

export const AssistantInfo = z
  .object({
    role: z.literal('assistant'),
    id: z.string().min(1),
    time,
    modelID: z.string(),
    providerID: z.string().nullish(),
    mode: z.string().nullish(),
    agent: z.string().nullish(),
    /** True on the message that holds a compaction summary. */
    summary: z.union([z.boolean(), z.object({}).passthrough()]).nullish(),
    cost: count.nullish(),
    tokens: StepTokens.nullish(),
    error: z.object({ name: z.string().nullish(), data: z.object({ message: z.unknown() }).passthrough().nullish() }).passthrough().nullish(),
  })
  .passthrough();
export type AssistantInfo = z.infer<typeof AssistantInfo>;

export const MessageInfo = z.discriminatedUnion('role', [UserInfo, AssistantInfo]);
export type MessageInfo = z.infer<typeof MessageInfo>;

const partTime = z.object({ start: count.nullish(), end: count.nullish() }).passthrough().nullish();

const TextPart = z
  .object({ type: z.literal('text'), text: z.string(), synthetic: z.boolean().nullish(), ignored: z.boolean().nullish(), time: partTime })
  .passthrough();
const ReasoningPart = z.object({ type: z.literal('reasoning'), text: z.string(), time: partTime }).passthrough();
const ToolPart = z
  .object({
    type: z.literal('tool'),
    callID: z.string().nullish(),
    tool: z.string().min(1),
    state: z
      .object({
        status: z.enum(['pending', 'running', 'completed', 'error']),
        input: z.unknown(),
        output: z.string().nullish(),
        error: z.string().nullish(),
        metadata: z.record(z.string(), z.unknown()).nullish(),
        time: partTime,
      })
      .passthrough(),
  })
  .passthrough();
const StepStartPart = z.object({ type: z.literal('step-start') }).passthrough();
const StepFinishPart = z
  .object({ type: z.literal('step-finish'), reason: z.string().nullish(), cost: count.nullish(), tokens: StepTokens })
  .passthrough();
const FilePart = z.object({ type: z.literal('file'), mime: z.string(), filename: z.string().nullish() }).passthrough();
const CompactionPart = z.object({ type: z.literal('compaction'), auto: z.boolean().nullish() }).passthrough();
const SubtaskPart = z
  .object({ type: z.literal('subtask'), prompt: z.string(), description: z.string().nullish(), agent: z.string().nullish() })
  .passthrough();
/** Parts that hold nothing a turn reports: an @agent mention (its text is in a text part), file snapshots, retries. */
const QuietPart = z.object({ type: z.enum(['agent', 'patch', 'snapshot', 'retry']) }).passthrough();

export const KnownPart = z.discriminatedUnion('type', [
  TextPart,
  ReasoningPart,
  ToolPart,
  StepStartPart,
  StepFinishPart,
  FilePart,
  CompactionPart,
  SubtaskPart,
  QuietPart,
]);
export type KnownPart = z.infer<typeof KnownPart>;
export type ToolPart = z.infer<typeof ToolPart>;
export type StepFinishPart = z.infer<typeof StepFinishPart>;

export const KNOWN_PART_TYPES = new Set([
  'text', 'reasoning', 'tool', 'step-start', 'step-finish', 'file', 'compaction', 'subtask', 'agent', 'patch', 'snapshot', 'retry',
]);

/** Any part: its type must be a string; one of a type this importer does not know is kept aside, not refused. */
export const AnyPart = z.object({ type: z.string().min(1) }).passthrough();

/** One message with its parts, each part located for error messages. */
export interface OpenCodeMessage {
  info: MessageInfo;
  where: () => { file: string; line: number };
  parts: Located<KnownPart>[];
}
