/**
 * Cline task folders (`…/saoudrizwan.claude-dev/tasks/<id>/`), and the same layout written by Roo Code and Kilo
 * Code: one episode per folder, one turn per model request, in order.
 *
 * The trajectory is `ui_messages.json`: it is where each request's model, tokens and cost are logged (its
 * `api_req_started` messages). The response itself — text, thinking, tool calls and their results, and the
 * messages that reached the model in between — comes from `api_conversation_history.json` beside it
 * (clineConversation.ts); mode and model from `modelInfo` on the messages, else `task_metadata.json`'s
 * `model_usage`, else the environment details the request carried. In a folder import the history is read with
 * its ui_messages.json (`readWith`), so the task is one episode; imported on its own it yields the same episode.
 *
 * A request is joined to its response by `conversationHistoryIndex` (Cline says api_req_started before it appends
 * the request's user message, so the response is two messages on), else by order. Cline's tokensIn leaves cache
 * reads and writes out (Anthropic's convention), so `in` adds them back; Roo Code since it logs `apiProtocol` stores
 * the total, recognised when no request's tokensIn is below its cache reads plus writes. Cost is logged per request.
 * The task folder records no total of its own (the task history that does lives in the extension's global state),
 * so `log_totals` is left out.
 */
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { CANONICAL_SCHEMA, CanonicalEpisode, describeIssue, type CanonicalTurn, type ConversationMessage, type ToolCall } from '../../shared/canonical.ts';
import { conversationOf, isoOf, type Response } from './clineConversation.ts';
import { API_HISTORY, OTHER_USAGE_SAYS, readTaskFolder, UI_MESSAGES, type ApiReqInfo, type Metadata, type Request, type TaskFolder } from './clineTask.ts';
import { sniffJsonHead } from './jsonHead.ts';
import { lineOfPath } from './jsonDocument.ts';
import { ImportError, type ImportContext, type Importer } from './types.ts';

const FORMAT = 'cline';
const HEAD_BYTES = 64 * 1024;

/** The tool family a call belongs to, for lift; a tool not listed is its own family. */
const FAMILY: Record<string, string> = {
  execute_command: 'bash',
  read_file: 'read',
  list_files: 'search',
  search_files: 'search',
  list_code_definition_names: 'search',
  codebase_search: 'search',
  write_to_file: 'edit',
  replace_in_file: 'edit',
  apply_diff: 'edit',
  insert_content: 'edit',
  search_and_replace: 'edit',
  browser_action: 'browser',
  use_mcp_tool: 'mcp',
  access_mcp_resource: 'mcp',
  web_fetch: 'web_fetch',
  ask_followup_question: 'ask',
};
const SUBMIT = 'attempt_completion';

/** The storage folder each extension writes its tasks under, as it names the agent. */
const AGENT_FOLDERS: [RegExp, string][] = [
  [/saoudrizwan\.claude-dev/i, 'cline'],
  [/rooveterinaryinc\.roo-cline/i, 'roo-code'],
  [/kilocode\.kilo-code/i, 'kilo-code'],
];

const UI_SAYS = new Set(['say', 'ask']);

function readHeadOf(file: string): string {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(HEAD_BYTES);
    return buf.subarray(0, readSync(fd, buf, 0, HEAD_BYTES, 0)).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

function isUiMessages(head: string): boolean {
  const sniff = sniffJsonHead(head);
  const type = sniff.strings.get('type');
  return sniff.container === 'array' && sniff.keys.includes('ts') && type !== undefined && UI_SAYS.has(type) &&
    (sniff.keys.includes('say') || sniff.keys.includes('ask'));
}

function isApiHistory(head: string, fileName: string): boolean {
  if (fileName !== API_HISTORY) return false;
  const sniff = sniffJsonHead(head);
  return sniff.container === 'array' && sniff.keys.includes('role') && sniff.keys.includes('content');
}

function arg(input: string | null | undefined, ...keys: string[]): string | null {
  if (!input) return null;
  try {
    const v: unknown = JSON.parse(input);
    if (typeof v !== 'object' || v === null) return null;
    for (const k of keys) {
      const s = (v as Record<string, unknown>)[k];
      if (typeof s === 'string') return s;
    }
  } catch {
    return null;
  }
  return null;
}

const clip = (s: string, n = 200): string => (s.length > n ? `${s.slice(0, n)}…` : s);

/** One line per call, in the words of `execute_command: npm test` / `read_file: a.cs`. */
function summarize(call: ToolCall): string {
  const what = arg(call.input, 'command', 'path', 'regex', 'query', 'url', 'server_name', 'question', 'result');
  return what === null ? call.name : `${call.name}: ${clip(what.split('\n')[0] ?? '')}`;
}

function actionOf(text: string, calls: ToolCall[]): CanonicalTurn['action'] {
  const first = calls[0];
  if (!first) return { type: 'message', tool: null, text };
  const submit = calls.some((c) => c.name === SUBMIT);
  return { type: submit ? 'submit' : 'tool', tool: FAMILY[first.name] ?? first.name, text: calls.map(summarize).join('\n') };
}

/** True when the file's tokensIn already counts cache reads and writes (Roo Code's `apiProtocol` era). */
function tokensInIncludesCache(requests: Request[]): boolean {
  if (!requests.some((r) => r.info.apiProtocol != null)) return false;
  return requests.every((r) => (r.info.tokensIn ?? 0) >= (r.info.cacheReads ?? 0) + (r.info.cacheWrites ?? 0));
}

function tokensOf(info: ApiReqInfo, inclusive: boolean): CanonicalTurn['tokens'] {
  const { tokensIn, tokensOut, cacheReads, cacheWrites } = info;
  if (tokensIn == null && tokensOut == null && cacheReads == null && cacheWrites == null) return null;
  const cacheTotal = (cacheReads ?? 0) + (cacheWrites ?? 0);
  return {
    in: tokensIn == null ? null : inclusive ? tokensIn : tokensIn + cacheTotal,
    out: tokensOut ?? null,
    cached: cacheReads ?? null,
    cache_write: cacheWrites ?? null,
  };
}

/** Model and mode from the environment details a request carried (Roo Code's `<model>` / `<slug>`, Cline's `# Current Mode`). */
function fromEnvironment(inputs: ConversationMessage[]): { model: string | null; mode: string | null } {
  let model: string | null = null;
  let mode: string | null = null;
  for (const m of inputs) {
    model = /<model>([^<\n]+)<\/model>/.exec(m.text)?.[1]?.trim() ?? model;
    const slug = /<slug>([^<\n]+)<\/slug>/.exec(m.text)?.[1]?.trim();
    const cline = /# Current Mode\n(ACT|PLAN) MODE/.exec(m.text)?.[1];
    mode = slug ?? (cline ? cline.toLowerCase() : null) ?? mode;
  }
  return { model, mode };
}

/** The model_usage entry in force at `ts`: the last one recorded at or before it. */
function usageAt(metadata: Metadata | null, ts: number | null | undefined): NonNullable<Metadata['model_usage']>[number] | null {
  const usage = metadata?.model_usage ?? [];
  let found = null;
  for (const u of usage) if (ts == null || u.ts <= ts) found = u;
  return found ?? usage[0] ?? null;
}

const USER_SAYS = new Set(['user_feedback', 'user_feedback_diff']);

/** A request whose response is not in the history: what ui_messages.json showed of it. */
function shownResponse(r: Request): { text: string; reasoning: string | null; calls: ToolCall[] } {
  const text: string[] = [];
  const reasoning: string[] = [];
  const calls: ToolCall[] = [];
  for (const m of r.shown) {
    const kind = m.type === 'say' ? m.say : m.ask;
    const body = m.text ?? '';
    if (kind === 'text' && body) text.push(body);
    else if (kind === 'reasoning' && body) reasoning.push(body);
    else if (kind === 'tool') calls.push({ id: null, name: arg(body, 'tool') ?? 'tool', input: body, result: null, is_error: null });
    else if (kind === 'command') calls.push({ id: null, name: 'execute_command', input: JSON.stringify({ command: body }), result: null, is_error: null });
    else if (kind === 'completion_result' && m.type === 'say') calls.push({ id: null, name: SUBMIT, input: JSON.stringify({ result: body }), result: null, is_error: null });
    else if (kind === 'followup' && m.type === 'ask') calls.push({ id: null, name: 'ask_followup_question', input: body, result: null, is_error: null });
  }
  return { text: text.join('\n'), reasoning: reasoning.length ? reasoning.join('\n') : null, calls };
}

interface Built {
  turn: CanonicalTurn;
  /** Where the turn's request is in ui_messages.json, to place an error. */
  uiAt: number | null;
}

interface Context {
  folder: TaskFolder;
  inclusive: boolean;
  previousModel: string | null;
}

function buildTurn(t: number, request: Request | null, response: Response | null, c: Context): Built {
  const notes: string[] = [];
  const inputs = response?.inputs ?? [];
  const env = fromEnvironment(inputs);
  const ts = request?.message.ts ?? response?.message.ts;
  const usage = usageAt(c.folder.metadata, ts);
  let model = request?.message.modelInfo?.modelId ?? response?.message.modelInfo?.modelId ?? usage?.model_id ?? env.model ?? null;
  if (!model) {
    model = c.previousModel ?? 'unknown';
    notes.push(c.previousModel ? 'model not logged for this request: taken from the previous one' : 'model not logged');
  }
  const mode = request?.message.modelInfo?.mode ?? response?.message.modelInfo?.mode ?? usage?.mode ?? env.mode ?? null;
  const shown = request ? shownResponse(request) : null;
  const text = response?.text ?? shown?.text ?? '';
  const calls = response?.calls ?? shown?.calls ?? [];
  if (!response) notes.push('no response in api_conversation_history.json: text and tool calls as ui_messages.json showed them');
  const info = request?.info;
  if (info?.cancelReason) notes.push(`request ended: ${info.cancelReason}${info.streamingFailedMessage ? ` (${clip(info.streamingFailedMessage, 300)})` : ''}`);
  let tokens = info ? tokensOf(info, c.inclusive) : null;
  let cost = info?.cost ?? null;
  if (!request) {
    notes.push('no api_req_started for this response in ui_messages.json: usage from the history message');
    const m = response?.message.metrics;
    const tk = m?.tokens;
    if (tk) {
      // The history's metrics add cache reads and writes up in one `cached`: the total input is known, its split is not.
      tokens = { in: tk.prompt == null ? null : tk.prompt + (tk.cached ?? 0), out: tk.completion ?? null, cached: null, cache_write: null };
      if (tk.cached) notes.push(`cache reads and writes logged together (${tk.cached} tokens): a priced cost counts them as uncached input`);
    }
    cost = m?.cost ?? null;
  }
  const results = calls.map((call) => call.result).filter((r): r is string => r != null);
  const turn: CanonicalTurn = {
    t,
    model,
    action: actionOf(text, calls),
    observation: results.length ? results.join('\n') : null,
    role: mode,
    reasoning: response?.reasoning ?? shown?.reasoning ?? null,
    message: calls.length && text.trim() !== '' ? text : null,
    tool_calls: calls.length ? calls : null,
    inputs: inputs.length ? inputs : null,
    notes: notes.length ? notes : null,
    timestamp: isoOf(ts),
    tokens,
    cost_usd: cost,
    latency_ms: null,
  };
  return { turn, uiAt: request?.at ?? null };
}

/** Pairs each request with its response: by conversationHistoryIndex when every request has one, else in order. */
function pair(requests: Request[], responses: Response[]): { request: Request | null; response: Response | null }[] {
  const byIndex = requests.length > 0 && requests.every((r) => r.message.conversationHistoryIndex != null);
  const used = new Set<Response>();
  let next = 0;
  const target = (r: Request): Response | null => {
    if (byIndex) {
      const at = (r.message.conversationHistoryIndex as number) + 2;
      return responses.find((x) => x.index === at && !used.has(x)) ?? null;
    }
    while (next < responses.length && used.has(responses[next] as Response)) next++;
    return responses[next] ?? null;
  };
  const pairs: { request: Request | null; response: Response | null }[] = [];
  for (const request of requests) {
    const response = target(request);
    if (response) {
      // Responses with no request of their own come before the next paired one, in history order.
      for (const x of responses) if (!used.has(x) && x.index < response.index) {
        used.add(x);
        pairs.push({ request: null, response: x });
      }
      used.add(response);
    }
    pairs.push({ request, response });
  }
  for (const x of responses) if (!used.has(x)) pairs.push({ request: null, response: x });
  return pairs;
}

function agentOf(file: string, folder: TaskFolder): NonNullable<CanonicalEpisode['agent']> {
  const path = resolve(file);
  const named = AGENT_FOLDERS.find(([re]) => re.test(path))?.[1];
  const version = folder.metadata?.environment_history?.at(-1)?.cline_version ?? null;
  if (named) return { name: named, version: named === 'cline' ? version : null };
  if (version) return { name: 'cline', version };
  // Roo Code and its forks log the API protocol of each request; Cline does not.
  if (folder.ui?.requests.some((r) => r.info.apiProtocol != null)) return { name: 'roo-code', version: null };
  return { name: 'cline', version: null };
}

function buildEpisode(file: string, folder: TaskFolder, ctx: ImportContext): CanonicalEpisode {
  const { ui, history } = folder;
  const requests = ui?.requests ?? [];
  const conversation = history ? conversationOf(history.messages) : { taskText: null, responses: [], final: [] };
  const unanswered = requests.filter((r) => r.info.cost == null && r.info.tokensIn == null && r.info.tokensOut == null && r.info.cancelReason == null);
  const c: Context = { folder, inclusive: tokensInIncludesCache(requests), previousModel: null };
  const built: Built[] = [];
  for (const { request, response } of pair(requests, conversation.responses)) {
    // A request with neither usage nor a response was never answered (in flight when the log was saved).
    if (request && !response && unanswered.includes(request)) continue;
    const b = buildTurn(built.length, request, response, c);
    c.previousModel = b.turn.model;
    built.push(b);
  }
  const dropped = unanswered.filter((r) => !built.some((b) => b.uiAt === r.at)).length;
  if (dropped > 0) ctx.warn(`${dropped} request(s) in ${UI_MESSAGES} have no usage and no response (in flight or cancelled before any reply): not turns`);
  if (built.length === 0) throw new ImportError(file, 1, 'no model requests in this task (no api_req_started and no assistant message)');
  const unknown = built.filter((b) => b.turn.model === 'unknown').length;
  if (unknown > 0) ctx.warn(`${unknown} request(s) name no model (no modelInfo, ${folder.metadata ? 'no model_usage entry' : 'no task_metadata.json'}): model "unknown"`);
  if (c.inclusive) ctx.warn(`${UI_MESSAGES}: tokensIn read as including cache reads and writes (apiProtocol logged, as Roo Code does)`);

  for (const say of OTHER_USAGE_SAYS) {
    const found = (ui?.messages ?? []).filter((m) => m.type === 'say' && m.say === say);
    if (found.length === 0) continue;
    let usd = 0;
    for (const m of found) {
      try {
        const v = JSON.parse(m.text ?? '{}') as { cost?: unknown };
        if (typeof v.cost === 'number' && Number.isFinite(v.cost)) usd += v.cost;
      } catch {
        // The message's cost is what matters here; one without a readable cost adds nothing.
      }
    }
    ctx.warn(`${UI_MESSAGES}: ${found.length} "${say}" message(s) record $${usd.toFixed(6)} of requests no turn shows (the extension counts them in its total)`);
  }

  const lastShown = requests.at(-1)?.shown ?? [];
  const finalMessages: ConversationMessage[] = [
    ...conversation.final,
    ...lastShown.filter((m) => m.type === 'say' && USER_SAYS.has(m.say ?? '') && m.text).map((m) => ({ role: 'user' as const, text: m.text as string, timestamp: isoOf(m.ts) })),
  ];
  const firstUiText = ui?.messages.find((m) => m.type === 'say' && m.say === 'text' && m.text)?.text ?? null;
  const agent = agentOf(file, folder);
  const completed = (ui?.messages ?? []).some((m) => m.type === 'say' && m.say === 'completion_result');
  const episode: CanonicalEpisode = {
    schema: CANONICAL_SCHEMA,
    run: ctx.runName ?? agent.name ?? FORMAT,
    episode_id: folder.id,
    task: { id: folder.id, type: agent.name ?? FORMAT, text: conversation.taskText ?? firstUiText },
    outcome: { exit: completed ? 'completion_result' : null },
    agent,
    started_at: isoOf(ui?.messages[0]?.ts ?? history?.messages[0]?.ts),
    final_messages: finalMessages.length ? finalMessages : null,
    turns: built.map((b) => b.turn),
  };
  const checked = CanonicalEpisode.safeParse(episode);
  if (!checked.success) {
    const path = checked.error.issues[0]?.path ?? [];
    const b = path[0] === 'turns' && typeof path[1] === 'number' ? built[path[1]] : undefined;
    if (ui && b?.uiAt != null) throw new ImportError(ui.file, lineOfPath(ui.text, [b.uiAt]), describeIssue(checked.error));
    throw new ImportError(file, 1, describeIssue(checked.error));
  }
  return checked.data;
}

export const clineImporter: Importer = {
  format: FORMAT,
  expects: 'a Cline / Roo Code / Kilo Code task folder: ui_messages.json (an array of {ts, type: "say"|"ask", …}) beside api_conversation_history.json',
  sidecars: [/^task_metadata\.json$/, /^context_history\.json$/, /^history_item\.json$/, /^focus_chain_taskid_[\w-]+\.md$/],

  detect(head, fileName) {
    return isUiMessages(head) || isApiHistory(head, fileName);
  },

  readWith(file) {
    if (basename(file) !== API_HISTORY) return null;
    const ui = join(dirname(file), UI_MESSAGES);
    return existsSync(ui) && statSync(ui).isFile() && isUiMessages(readHeadOf(ui)) ? ui : null;
  },

  async *read(file: string, ctx: ImportContext) {
    const folder = readTaskFolder(file);
    ctx.onBytes?.(statSync(file).size);
    if (!folder.ui) ctx.warn(`${UI_MESSAGES} missing beside ${basename(file)}: no per-request model, tokens or cost; read from the history's own metrics where it has them`);
    if (!folder.history) ctx.warn(`${API_HISTORY} missing beside ${basename(file)}: responses, tool calls and inputs as ${UI_MESSAGES} showed them`);
    yield buildEpisode(file, folder, ctx);
  },
};
