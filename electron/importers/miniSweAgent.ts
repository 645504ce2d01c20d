/**
 * mini-swe-agent (`mini-swe-agent-1`) and MTRouter (`mini-agentic-router-1`) `*.traj.json`: one JSON object
 * per instance, one episode per file; also the legacy bare array of `{role, content}` messages.
 *
 * A turn is one assistant message. Its action is the message's single ```` ```bash ```` block (mini-swe-agent
 * runs a reply only when it has exactly one), or for MTRouter's ScienceWorld and HLE agents the text command or
 * the tool calls (mtrouterActions.ts); `action.text` keeps the whole reply, THOUGHT and command, since the
 * reasoning is what a reader of the turn wants beside the command. The observation is what the environment
 * said next (the following non-assistant messages). Tokens and cost are per turn from the raw response
 * (`usage.cost` for OpenRouter, `extra.cost` for Portkey); routing fields (`model_name`, `propensity`,
 * `q_values`, `router_info` with the β-mixed router's greedy choice) from MTRouter's assistant messages.
 * Outcomes: an MTRouter file that names its benchmark is read as the reference's parser reads it
 * (mtrouter.ts: ScienceWorld / HLE score, task, category, split, and HLE's ground truth and judge); otherwise
 * SWE-bench labels beside the run (sweBenchLabels.ts), with a harness report's tests, and `info.submission` (the
 * patch) as the answer. Python's `NaN` / `Infinity` words are accepted (pythonJson.ts). Errors are left to
 * the rules (DESIGN §5).
 *
 * Every message lands somewhere: the first system message is the system prompt, the first user message the task,
 * the user messages after a reply its observation; a system message between replies (or a second user message
 * before the first) is the next turn's input, and after the last reply a final message. `info.model_stats`
 * (instance_cost, api_calls) is the log's own total.
 */
import { statSync } from 'node:fs';
import { basename, dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import type { z } from 'zod';
import { CANONICAL_SCHEMA, CanonicalEpisode, describeIssue, type CanonicalTurn, type ConversationMessage } from '../../shared/canonical.ts';
import { sniffJsonHead } from './jsonHead.ts';
import { decodeJson, failAt, lineOfPath, parseJson, readTextFile, type Fail, type JsonPath } from './jsonDocument.ts';
import { LegacyMessages, Trajectory, TRAJECTORY_FORMATS, type Content, type Message, type RouterInfo } from './miniSweAgentFormat.ts';
import { benchmarkOf, HLE, mtrouterFacts, mtrouterInstance, SCIENCEWORLD } from './mtrouter.ts';
import { HLE_ANSWER_TOOL, HLE_TOOLS, SCIENCEWORLD_FINISH_MARKERS, textActionOf, toolCallActionOf } from './mtrouterActions.ts';
import { pythonJsonText } from './pythonJson.ts';
import { loggedText } from './outcomeValues.ts';
import { findSweBenchLabel, sweBenchOutcome } from './sweBenchLabels.ts';
import { ImportError, type ImportContext, type Importer } from './types.ts';

// mini-swe-agent 1.x's own action regex (`re.findall(r"```bash\s*\n(.*?)\n```", re.DOTALL)`).
const BASH_BLOCK = /```bash\s*\n([\s\S]*?)\n```/g;
// The commands that end an episode: 1.x prints COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT, older versions the other.
const SUBMIT = /^\s*echo\s+['"]?(?:COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT|MINI_SWE_AGENT_FINAL_OUTPUT)\b/;
/** Keys of the `info` object only mini-swe-agent's save_traj writes (an OpenCode export's `info` has id, slug, projectID). */
const MINI_INFO_KEY = /"(exit_status|model_stats|mini_version)"\s*:/;
const KNOWN_FORMATS: ReadonlySet<string> = new Set(TRAJECTORY_FORMATS);

const textOf = (content: Content | null | undefined): string =>
  content == null ? '' : typeof content === 'string' ? content : content.map((p) => p.text ?? '').join('\n');

/** The turn's action from an assistant reply: `tool`/`bash`, `submit` for the final command, else `message`. */
export function actionOf(reply: string): CanonicalTurn['action'] {
  const blocks = [...reply.matchAll(BASH_BLOCK)];
  const command = blocks.length === 1 ? blocks[0]?.[1] : undefined;
  if (command === undefined) return { type: 'message', tool: null, text: reply };
  return { type: SUBMIT.test(command) ? 'submit' : 'tool', tool: 'bash', text: reply };
}

/** `django__django-12143` → `django` (SWE-bench ids are `<owner>__<repo>-<number>`); null for other ids. */
export function repoOf(instanceId: string): string | null {
  return /^.+?__(.+)-\d+$/.exec(instanceId)?.[1] ?? null;
}

const stemOf = (file: string): string => basename(file).replace(/\.traj\.json$/, '').replace(/\.json$/, '');

/**
 * The run's folder: the one holding `trajs/` for `…/trajs/<id>/<id>.traj.json`, else the one holding the
 * per-instance folder (mini-swe-agent's own `<output>/<id>/<id>.traj.json`), else the file's folder.
 */
function runDirOf(file: string, instanceId: string): string {
  let dir = dirname(resolve(file));
  if ([stemOf(file), instanceId].includes(basename(dir))) dir = dirname(dir);
  if (basename(dir) === 'trajs') dir = dirname(dir);
  return dir;
}

const isWithin = (dir: string, ancestor: string): boolean => {
  const rel = relative(ancestor, dir);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

/**
 * Labels are searched up to the folder the user imported, and at least up to the run folder: importing one
 * trajectory (root = the file) or only `trajs/` should still find the run's `logs/` and summaries.
 */
function labelStopDir(file: string, root: string, runDir: string): string {
  const rootDir = resolve(root) === resolve(file) ? dirname(resolve(file)) : resolve(root);
  return isWithin(runDir, rootDir) ? rootDir : runDir;
}

/** Where a label was read, from the run folder (`logs/<id>/report.json`), so a stored episode names no machine's paths. */
const labelSource = (source: string, runDir: string): string => {
  const rel = relative(runDir, source);
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? basename(source) : rel.split(sep).join('/');
};

const firstName = (...names: (string | null | undefined)[]): string | null =>
  names.map((n) => n?.trim()).find((n): n is string => !!n) ?? null;

type ActionReader = (reply: string) => CanonicalTurn['action'];

/**
 * How the agent read its replies: `info.config.agent.action_mode` when the file has it, else by benchmark
 * (MTRouter runs ScienceWorld in text mode and HLE with tool calls), else mini-swe-agent's bash blocks.
 */
function actionReaderOf(traj: Trajectory | null, benchmark: string | null): ActionReader {
  const agent = traj?.info?.config?.agent;
  const mode = agent?.action_mode ?? (benchmark === SCIENCEWORLD ? 'text' : benchmark === HLE ? 'multitool' : 'bash');
  if (mode === 'text') {
    const markers = agent?.finish_markers ?? SCIENCEWORLD_FINISH_MARKERS;
    return (reply) => textActionOf(reply, markers);
  }
  if (mode === 'multitool') {
    const tools = agent?.enabled_tools ?? HLE_TOOLS;
    const answer = agent?.answer_tool ?? HLE_ANSWER_TOOL;
    return (reply) => toolCallActionOf(reply, tools, answer);
  }
  return actionOf;
}

/** The routing record of a reply: top-level `router_info`, or `extra.router_info` in older files. */
const routerInfoOf = (m: Message): RouterInfo | null | undefined => m.router_info ?? m.extra?.router_info;

/**
 * Router scores per model: `q_values` as a record, or as an array aligned with `model_pool`. A score that is
 * not a finite number (the learned router's -Infinity for a model it cannot score, NaN) marks a model that
 * was not a candidate: it is left out.
 */
function candidatesOf(message: Message, warnOnce: (m: string) => void): Record<string, number> | null {
  const info = routerInfoOf(message);
  const q = message.q_values ?? info?.q_values;
  if (q == null || (Array.isArray(q) && q.length === 0)) return null;
  let entries: [string, number | null][];
  if (Array.isArray(q)) {
    const pool = info?.model_pool;
    if (!pool || pool.length !== q.length) {
      warnOnce('q_values without a model_pool of the same length; candidates left out');
      return null;
    }
    entries = pool.map((model, i) => [model, q[i] ?? null]);
  } else {
    entries = Object.entries(q);
  }
  const finite = entries.filter((e): e is [string, number] => e[1] !== null && Number.isFinite(e[1]));
  return finite.length ? Object.fromEntries(finite) : null;
}

/** Where the reference's parser looks for the propensity, in its order. */
function propensityOf(m: Message): number | null {
  return m.propensity ?? m.router_info?.propensity ?? m.extra?.propensity ?? m.extra?.router_info?.propensity ?? null;
}

/** The β-mixed router's record of the decision; null when the reply has none of it. */
function routerOf(m: Message): CanonicalTurn['router'] {
  const info = routerInfoOf(m);
  if (info?.greedy_model == null && info?.was_greedy == null && info?.beta == null) return null;
  return { greedy_model: info.greedy_model ?? null, was_greedy: info.was_greedy ?? null, beta: info.beta ?? null };
}

function tokensOf(message: Message): CanonicalTurn['tokens'] {
  const usage = message.extra?.response?.usage;
  if (!usage) return null;
  const tokens = {
    in: usage.prompt_tokens ?? null,
    out: usage.completion_tokens ?? null,
    cached: usage.prompt_tokens_details?.cached_tokens ?? null,
  };
  return tokens.in === null && tokens.out === null && tokens.cached === null ? null : tokens;
}

interface Turns {
  turns: CanonicalTurn[];
  /** Messages after the last reply that are not its observation. */
  final: ConversationMessage[];
  /** Index in `messages` of each turn's assistant message, to place errors. */
  messageIndex: number[];
}

/** A message the model read that is neither a reply nor the environment's answer to one. */
function inputOf(m: Message): ConversationMessage {
  return { role: m.role === 'system' ? 'system' : m.role === 'assistant' ? 'assistant' : m.role === 'tool' ? 'tool' : 'user', text: textOf(m.content) };
}

function turnsOf(
  messages: Message[],
  skip: ReadonlySet<Message>,
  configuredModel: string | null,
  readAction: ActionReader,
  warnOnce: (m: string) => void,
): Turns {
  const replies = messages.flatMap((message, at) => (message.role === 'assistant' ? [{ message, at }] : []));
  // Before the first reply, everything but the system prompt and the task; after each reply, its system messages.
  const inputs: ConversationMessage[][] = [messages.slice(0, replies[0]?.at ?? messages.length).filter((m) => !skip.has(m)).map(inputOf)];
  for (const [t, { at }] of replies.entries()) {
    inputs.push(messages.slice(at + 1, replies[t + 1]?.at ?? messages.length).filter((r) => r.role === 'system').map(inputOf));
  }
  const turns = replies.map(({ message: m, at }, t): CanonicalTurn => {
    const end = replies[t + 1]?.at ?? messages.length;
    // The environment's answer: every non-assistant message up to the next reply (usually exactly one).
    const answers = messages.slice(at + 1, end).filter((r) => r.role !== 'system');
    const before = inputs[t] ?? [];
    const router = routerInfoOf(m);
    const usage = m.extra?.response?.usage;
    return {
      t,
      model:
        firstName(m.model_name, m.selected_model, router?.selected_model, m.extra?.response?.model, configuredModel) ??
        'unknown',
      action: readAction(textOf(m.content)),
      inputs: before.length ? before : null,
      observation: answers.length ? answers.map((r) => textOf(r.content)).join('\n\n') : null,
      tokens: tokensOf(m),
      cost_usd: usage?.cost ?? m.extra?.cost ?? null,
      latency_ms: null,
      propensity: propensityOf(m),
      candidates: candidatesOf(m, warnOnce),
      router: routerOf(m),
    };
  });
  return { turns, final: inputs[replies.length] ?? [], messageIndex: replies.map((r) => r.at) };
}

interface Document {
  messages: Message[];
  /** Where `messages` is in the file (`[]` for a bare array), to place errors. */
  at: JsonPath;
  traj: Trajectory | null;
}

function decodeDocument(value: unknown, text: string, fail: Fail, warn: (m: string) => void): Document {
  if (Array.isArray(value)) {
    return { messages: decodeJson(LegacyMessages, value, text, [], fail), at: [], traj: null };
  }
  if (typeof value !== 'object' || value === null) {
    throw fail(1, 'expected a mini-swe-agent trajectory (a JSON object with messages) or an array of messages');
  }
  const traj = decodeJson(Trajectory, value, text, [], fail);
  const format = traj.trajectory_format;
  if (format != null && !KNOWN_FORMATS.has(format)) {
    warn(`trajectory_format "${format}" is not one this importer knows (${TRAJECTORY_FORMATS.join(', ')}); read as mini-swe-agent-1`);
  }
  return { messages: traj.messages, at: ['messages'], traj };
}

/** Router runs name the router in `router_info`/`router_type`, or configure a pool (`model_kwargs`). */
function policyOf(traj: Trajectory | null, messages: Message[]): NonNullable<CanonicalEpisode['policy']> {
  const config = traj?.info?.config;
  const assistant = messages.filter((m) => m.role === 'assistant');
  const routerType = firstName(
    ...assistant.map((m) => firstName(m.router_info?.router_type, m.extra?.router_info?.router_type, m.router_type)),
  );
  const routed =
    routerType !== null ||
    Array.isArray(config?.model?.model_kwargs) ||
    /\.routers?\./.test(config?.model_type ?? '') ||
    assistant.some((m) => m.propensity != null || m.q_values != null || m.router_info != null || m.extra?.router_info != null);
  if (routed) {
    return { name: firstName(routerType, config?.model?.model_name, config?.model_type), kind: 'router', train_step: null };
  }
  return { name: firstName(config?.model?.model_name), kind: 'single-model', train_step: null };
}

function logTotalsOf(stats: NonNullable<Trajectory['info']>['model_stats']): CanonicalEpisode['log_totals'] {
  if (stats?.api_calls == null && stats?.instance_cost == null) return null;
  return { source: 'info.model_stats', requests: stats.api_calls ?? null, cost_usd: stats.instance_cost ?? null };
}

function budgetOf(traj: Trajectory | null): CanonicalEpisode['budget'] {
  const agent = traj?.info?.config?.agent;
  // 0 is mini-swe-agent's "no limit".
  const usd = agent?.cost_limit ? agent.cost_limit : null;
  const maxTurns = agent?.step_limit ? agent.step_limit : null;
  return usd === null && maxTurns === null ? null : { mode: null, usd, max_turns: maxTurns };
}

/** Places a schema failure of the built episode on its assistant message when it is about a turn. */
function episodeFailure(file: string, text: string, doc: Document, messageIndex: number[], error: z.ZodError): ImportError {
  const path = error.issues[0]?.path ?? [];
  const turn = path[0] === 'turns' && typeof path[1] === 'number' ? messageIndex[path[1]] : undefined;
  const line = turn === undefined ? 1 : lineOfPath(text, [...doc.at, turn]);
  return new ImportError(file, line, describeIssue(error));
}

export const miniSweAgentImporter: Importer = {
  format: 'mini-swe-agent',
  expects: 'a mini-swe-agent / MTRouter trajectory: one JSON object with "messages" (or a bare array of messages) and "info"',
  sidecars: [/^report\.json$/, /^results_summary\.(json|csv)$/, /^results\.json$/, /^summary_[\w-]+\.json$/, /^preds\.json$/, /^swe-bench_[\w.-]+\.json$/],

  // Positive signatures only (issue 34): a bare array of chat messages or an object with `messages` and `info` is
  // also what Cline's api_conversation_history.json and an OpenCode export look like, so each form must show
  // something only mini-swe-agent writes.
  detect(head, fileName) {
    const sniff = sniffJsonHead(head);
    if (sniff.container === 'array') {
      // The legacy form: a bare array opening with the agent's system prompt as plain text (Cline's history opens
      // with a user message whose content is an array of blocks).
      return sniff.strings.get('role') === 'system' && sniff.keys.includes('content') && /"content"\s*:\s*"/.test(head);
    }
    if (sniff.container !== 'object') return false;
    const format = sniff.strings.get('trajectory_format');
    if (format !== undefined) return /^mini-(swe-agent|agentic-router)-/.test(format);
    if (sniff.keys.includes('messages') && sniff.keys.includes('info') && MINI_INFO_KEY.test(head)) return true;
    // save_traj writes `info` first, opening with `exit_status`; a long `info` (prompt templates, a big
    // diff) can push `messages` and `trajectory_format` past the head, so the name has to help.
    return fileName.endsWith('.traj.json') && /^\uFEFF?\s*\{\s*"info"\s*:\s*\{\s*"exit_status"\s*:/.test(head);
  },

  async *read(file: string, ctx: ImportContext) {
    const fail = failAt(file);
    const text = pythonJsonText(readTextFile(file));
    ctx.onBytes?.(statSync(file).size);
    const warned = new Set<string>();
    const warnOnce = (message: string): void => {
      if (warned.has(message)) return;
      warned.add(message);
      ctx.warn(message);
    };
    const doc = decodeDocument(parseJson(text, fail), text, fail, warnOnce);
    const { traj, messages } = doc;
    const info = traj?.info;
    const benchmark = benchmarkOf(info);
    const policy = policyOf(traj, messages);
    // A router's configured "model" is the router itself (`roulette`), never a turn's model.
    const configuredModel = policy.kind === 'router' ? null : (info?.config?.model?.model_name ?? null);
    const systemPrompt = messages.find((m) => m.role === 'system');
    const firstUser = messages.find((m) => m.role === 'user');
    const skip = new Set([systemPrompt, firstUser].filter((m): m is Message => m !== undefined));
    const { turns, final, messageIndex } = turnsOf(messages, skip, configuredModel, actionReaderOf(traj, benchmark), warnOnce);
    if (turns.length === 0) {
      throw fail(lineOfPath(text, doc.at), 'no assistant messages: the trajectory has no turns');
    }
    const unknown = turns.filter((t) => t.model === 'unknown').length;
    if (unknown > 0) {
      warnOnce(traj === null ? 'legacy bare message array: model unknown' : `${unknown} assistant message(s) name no model: model "unknown"`);
    }

    const instanceId = traj?.instance_id ?? (info && benchmark !== null ? mtrouterInstance(info, stemOf(file)) : stemOf(file));
    const runDir = runDirOf(file, instanceId);
    const taskText = firstUser ? textOf(firstUser.content) : null;
    const exit = info?.exit_status ?? null;
    const facts = mtrouterFacts(info, instanceId, runDir, warnOnce);
    let task: CanonicalEpisode['task'];
    let outcome: CanonicalEpisode['outcome'];
    if (facts) {
      task = { ...facts.task, text: taskText };
      outcome = { ...facts.outcome, exit };
    } else {
      const label = findSweBenchLabel(resolve(file), instanceId, labelStopDir(file, ctx.root, runDir), warnOnce);
      task = { id: instanceId, type: 'swe', category: repoOf(instanceId), text: taskText };
      outcome = {
        score: label ? (label.resolved ? 1 : 0) : null,
        score_range: label ? [0, 1] : null,
        success: label ? label.resolved : null,
        exit,
        // The patch the harness graded; no target is logged (SWE-bench's gold patch is not in the run).
        answer: loggedText(info?.submission),
        ...(label ? sweBenchOutcome(label.resolved, labelSource(label.source, runDir), label.report) : {}),
      };
    }
    const episode: CanonicalEpisode = {
      schema: CANONICAL_SCHEMA,
      run: ctx.runName ?? (basename(runDir) || 'mini-swe-agent'),
      episode_id: instanceId,
      task,
      outcome,
      budget: budgetOf(traj),
      policy,
      // The log's own total; the turns' costs win when they have them (canonical.ts).
      cost_usd: info?.model_stats?.instance_cost ?? null,
      // Kept beside the turns so the import says when api_calls or instance_cost disagree with them.
      log_totals: logTotalsOf(info?.model_stats),
      system_prompt: systemPrompt ? textOf(systemPrompt.content) : null,
      final_messages: final.length ? final : null,
      turns,
    };
    const checked = CanonicalEpisode.safeParse(episode);
    if (!checked.success) throw episodeFailure(file, text, doc, messageIndex, checked.error);
    yield checked.data;
  },
};
