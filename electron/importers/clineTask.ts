/**
 * The files of one Cline task folder (`…/globalStorage/saoudrizwan.claude-dev/tasks/<id>/`; Roo Code and Kilo Code
 * keep the same layout), decoded with the line of anything wrong:
 * - `ui_messages.json`: what the extension showed. Each model request is one `say: "api_req_started"` whose `text`
 *   is JSON with that request's tokensIn, tokensOut, cacheReads, cacheWrites and cost (the oldest versions put the
 *   usage in a following `api_req_finished`, merged here as Cline merges it).
 * - `api_conversation_history.json`: the messages sent to the model, Anthropic-shaped (assistant text / thinking /
 *   tool_use; user text / tool_result / image). Newer Cline stamps each assistant message with `modelInfo`.
 * - `task_metadata.json`: `model_usage`, the model and mode in force from each `ts` on, and the Cline version.
 * A sibling that is missing is null (the caller says what that costs); one that is there but broken is an error.
 */
import { existsSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import { MAX_COST_USD, MAX_TOKENS } from '../../shared/canonical.ts';
import { decodeJson, failAt, lineOfPath, parseJson, readTextFile } from './jsonDocument.ts';
import { ImportError } from './types.ts';

export const UI_MESSAGES = 'ui_messages.json';
export const API_HISTORY = 'api_conversation_history.json';
export const TASK_METADATA = 'task_metadata.json';

const tokenCount = z.number().int().nonnegative().max(MAX_TOKENS);
const cost = z.number().nonnegative().max(MAX_COST_USD);

const ModelInfo = z.object({
  modelId: z.string().max(300).nullish(),
  providerId: z.string().max(300).nullish(),
  mode: z.string().max(100).nullish(),
});
export type ModelInfo = z.infer<typeof ModelInfo>;

const UiMessage = z.object({
  ts: z.number(),
  type: z.enum(['say', 'ask']),
  say: z.string().max(200).nullish(),
  ask: z.string().max(200).nullish(),
  text: z.string().nullish(),
  partial: z.boolean().nullish(),
  modelInfo: ModelInfo.nullish(),
  conversationHistoryIndex: z.number().int().nullish(),
});
export type UiMessage = z.infer<typeof UiMessage>;

/** The JSON in an `api_req_started` message's text (ClineApiReqInfo; Roo Code adds `apiProtocol`). */
const ApiReqInfo = z.object({
  request: z.string().nullish(),
  tokensIn: tokenCount.nullish(),
  tokensOut: tokenCount.nullish(),
  cacheWrites: tokenCount.nullish(),
  cacheReads: tokenCount.nullish(),
  cost: cost.nullish(),
  cancelReason: z.string().max(200).nullish(),
  streamingFailedMessage: z.string().nullish(),
  apiProtocol: z.string().max(100).nullish(),
});
export type ApiReqInfo = z.infer<typeof ApiReqInfo>;

const TextPart = z.object({ type: z.string(), text: z.string().nullish() });

const Block = z.object({
  type: z.string().max(100),
  text: z.string().nullish(),
  thinking: z.string().nullish(),
  id: z.string().max(300).nullish(),
  name: z.string().max(200).nullish(),
  input: z.unknown().optional(),
  tool_use_id: z.string().max(300).nullish(),
  content: z.union([z.string(), z.array(TextPart)]).nullish(),
  is_error: z.boolean().nullish(),
  source: z.object({ media_type: z.string().max(100).nullish() }).nullish(),
});
export type Block = z.infer<typeof Block>;

const ApiMessage = z.object({
  role: z.enum(['user', 'assistant']),
  content: z.union([z.string(), z.array(Block)]),
  ts: z.number().nullish(),
  modelInfo: ModelInfo.nullish(),
  metrics: z
    .object({
      tokens: z.object({ prompt: tokenCount.nullish(), completion: tokenCount.nullish(), cached: tokenCount.nullish() }).nullish(),
      cost: cost.nullish(),
    })
    .nullish(),
  /** Roo Code's context condensing: a summary standing in for the messages before it, not a model response. */
  isSummary: z.boolean().nullish(),
});
export type ApiMessage = z.infer<typeof ApiMessage>;

const Metadata = z.object({
  model_usage: z
    .array(z.object({ ts: z.number(), model_id: z.string().max(300), model_provider_id: z.string().max(300).nullish(), mode: z.string().max(100).nullish() }))
    .nullish(),
  environment_history: z.array(z.object({ cline_version: z.string().max(100).nullish() })).nullish(),
});
export type Metadata = z.infer<typeof Metadata>;

/** One model request as ui_messages.json records it. */
export interface Request {
  info: ApiReqInfo;
  message: UiMessage;
  /** Index of the `api_req_started` message in ui_messages.json. */
  at: number;
  /** The ui messages after it, up to the next request: what the user saw of the response. */
  shown: UiMessage[];
}

export interface TaskFolder {
  id: string;
  ui: { file: string; text: string; messages: UiMessage[]; requests: Request[] } | null;
  history: { file: string; text: string; messages: ApiMessage[] } | null;
  metadata: Metadata | null;
}

/** Says that list usage in their text (getApiMetrics): kept apart, since they stand for requests no turn shows. */
export const OTHER_USAGE_SAYS = ['deleted_api_reqs', 'subagent_usage', 'condense_context'] as const;

function parseInfo(file: string, text: string, at: number, raw: string | null | undefined): ApiReqInfo {
  const line = (): number => lineOfPath(text, [at, 'text']);
  if (raw == null || raw.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    throw new ImportError(file, line(), `[${at}].text: api_req_started text is not JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ImportError(file, line(), `[${at}].text: api_req_started text is not a JSON object`);
  }
  const parsed = ApiReqInfo.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ImportError(file, line(), `[${at}].text.${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

/** The requests of a ui_messages.json, with what was shown after each. */
export function requestsOf(file: string, text: string, messages: UiMessage[]): Request[] {
  const requests: Request[] = [];
  for (const [at, m] of messages.entries()) {
    if (m.type === 'say' && m.say === 'api_req_started') {
      requests.push({ info: parseInfo(file, text, at, m.text), message: m, at, shown: [] });
      continue;
    }
    const last = requests.at(-1);
    if (!last) continue;
    if (m.type === 'say' && m.say === 'api_req_finished') {
      // Claude Dev 1.x logged usage in a second message; Cline's combineApiRequests merges the two the same way.
      last.info = { ...last.info, ...parseInfo(file, text, at, m.text) };
      continue;
    }
    last.shown.push(m);
  }
  return requests;
}

function readUi(file: string): NonNullable<TaskFolder['ui']> {
  const fail = failAt(file);
  const text = readTextFile(file);
  const value = parseJson(text, fail);
  if (!Array.isArray(value)) throw fail(1, 'expected ui_messages.json to be a JSON array of messages');
  const messages = decodeJson(z.array(UiMessage), value, text, [], fail);
  return { file, text, messages, requests: requestsOf(file, text, messages) };
}

function readHistory(file: string): NonNullable<TaskFolder['history']> {
  const fail = failAt(file);
  const text = readTextFile(file);
  const value = parseJson(text, fail);
  if (!Array.isArray(value)) throw fail(1, 'expected api_conversation_history.json to be a JSON array of messages');
  return { file, text, messages: decodeJson(z.array(ApiMessage), value, text, [], fail) };
}

function readMetadata(file: string): Metadata {
  const fail = failAt(file);
  const text = readTextFile(file);
  return decodeJson(Metadata, parseJson(text, fail), text, [], fail);
}

const present = (file: string): boolean => existsSync(file) && statSync(file).isFile();

/** Reads the task folder `file` belongs to (either of its two JSON files). */
export function readTaskFolder(file: string): TaskFolder {
  const dir = dirname(file);
  const uiFile = basename(file) === API_HISTORY ? join(dir, UI_MESSAGES) : file;
  const historyFile = basename(file) === API_HISTORY ? file : join(dir, API_HISTORY);
  const metadataFile = join(dir, TASK_METADATA);
  return {
    id: basename(dir),
    ui: present(uiFile) ? readUi(uiFile) : null,
    history: present(historyFile) ? readHistory(historyFile) : null,
    metadata: present(metadataFile) ? readMetadata(metadataFile) : null,
  };
}
