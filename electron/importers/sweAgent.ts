/**
 * SWE-agent `.traj` files (v0.x and v1): one JSON object per instance, one episode per file.
 *
 * Turns are the model's steps: `trajectory[]` (or, when that is empty, the assistant messages of `history`
 * that are not an injected demonstration); a step's `thought` is the turn's reasoning. The files carry no per-step tokens, cost or model, so turns have
 * none; the model is the run's (`replay_config.agent.model.name`, else a sibling `args.yaml`
 * `agent.model.model_name`, else the run directory's `<model>__…` prefix) and the logged
 * `info.model_stats.instance_cost` becomes the episode's cost, never split across turns.
 * Outcome: `info.exit_status` and `info.submission` (the patch, as the answer), plus resolved/unresolved when a
 * sibling `results.json` or `report.json` (SWE-bench evaluation) names the instance, with the harness's test groups
 * and patch checks when its entry has them (sweBenchLabels.ts).
 *
 * `info.model_stats` (api_calls, tokens_sent, tokens_received, instance_cost) is the log's own total. Of the
 * history, the first system message is the system prompt and the first non-demo user message the task; the
 * observations (role `tool`, or the user message that answers a reply) are the steps'; any other message (the
 * demonstration SWE-agent injects before the task, a system message between steps) is the next turn's input or,
 * after the last reply, a final message.
 */
import { readFileSync } from 'node:fs';
import { isRegularFile } from './regularFile.ts';
import { basename, dirname, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { CANONICAL_SCHEMA, CanonicalEpisode, describeIssue, type CanonicalTurn, type ConversationMessage } from '../../shared/canonical.ts';
import { decodeJson, failAt, parseJson, readTextFile } from './jsonDocument.ts';
import { loggedText } from './outcomeValues.ts';
import { harnessReport, sweBenchOutcome, type HarnessReport } from './sweBenchLabels.ts';
import { ImportError, type ImportContext, type Importer } from './types.ts';

const Content = z.union([
  z.string(),
  z.array(z.object({ type: z.string().nullish(), text: z.string().nullish() })),
]);

const Step = z.object({
  action: z.string(),
  observation: z.string().nullish(),
  thought: z.string().nullish(),
});

const HistoryMessage = z.object({
  role: z.string(),
  content: Content.nullish(),
  action: z.string().nullish(),
  thought: z.string().nullish(),
  is_demo: z.boolean().nullish(),
});

const Trajectory = z.object({
  trajectory: z.array(Step),
  history: z.array(HistoryMessage).nullish(),
  info: z
    .object({
      exit_status: z.string().nullish(),
      /** The patch the agent submitted (read as logged: loggedText). */
      submission: z.unknown().optional(),
      model_stats: z
        .object({
          instance_cost: z.number().nonnegative().nullish(),
          tokens_sent: z.number().int().nonnegative().nullish(),
          tokens_received: z.number().int().nonnegative().nullish(),
          api_calls: z.number().int().nonnegative().nullish(),
        })
        .nullish(),
    })
    .nullish(),
  replay_config: z.union([z.string(), z.record(z.string(), z.unknown())]).nullish(),
});

/** What we use of the run config, whether from `replay_config` (v1) or `args.yaml` (v0.x). */
const ReplayConfig = z.object({
  agent: z.object({
    model: z.object({ name: z.string().min(1), per_instance_cost_limit: z.number().nonnegative().nullish() }),
  }),
  problem_statement: z.object({ id: z.string().min(1).nullish() }).nullish(),
});
const ArgsYaml = z.object({
  agent: z.object({
    model: z.object({ model_name: z.string().min(1), per_instance_cost_limit: z.number().nonnegative().nullish() }),
  }),
});

interface RunConfig {
  model: string;
  costLimit: number | null;
  taskId: string | null;
}

type HistoryMessage = z.infer<typeof HistoryMessage>;
type Stats = NonNullable<NonNullable<z.infer<typeof Trajectory>['info']>['model_stats']>;

/** SWE-agent's own totals for the instance; null when it records none. */
function logTotalsOf(stats: Stats | null | undefined): CanonicalEpisode['log_totals'] {
  if (!stats) return null;
  const { api_calls: requests, tokens_sent: sent, tokens_received: received, instance_cost: cost } = stats;
  if (requests == null && sent == null && received == null && cost == null) return null;
  return {
    source: 'info.model_stats',
    requests: requests ?? null,
    tokens: sent == null && received == null ? null : { in: sent ?? null, out: received ?? null },
    cost_usd: cost ?? null,
  };
}

/** The history's messages that are neither a reply, its observation, the system prompt nor the task. */
interface Conversation {
  systemPrompt: string | null;
  /** Per reply (non-demo assistant message) in order, the messages before it. */
  inputs: ConversationMessage[][];
  final: ConversationMessage[];
  replies: number;
}

function conversationOf(history: HistoryMessage[], task: HistoryMessage | undefined): Conversation {
  let systemPrompt: string | null = null;
  const inputs: ConversationMessage[][] = [];
  let pending: ConversationMessage[] = [];
  let answered = false;
  for (const m of history) {
    if (m.role === 'assistant' && !m.is_demo) {
      inputs.push(pending);
      pending = [];
      answered = false;
      continue;
    }
    if (m === task) continue;
    const text = textOf(m.content);
    if (m.role === 'system' && systemPrompt === null && inputs.length === 0) {
      systemPrompt = text;
      continue;
    }
    // The environment's answer to the last reply: a tool result, or (v0.x) the first user message after it.
    if (inputs.length > 0 && (m.role === 'tool' || (m.role === 'user' && !answered && !m.is_demo))) {
      answered = true;
      continue;
    }
    pending.push({ role: m.role === 'system' ? 'system' : m.role === 'assistant' ? 'assistant' : 'user', text });
  }
  return { systemPrompt, inputs, final: pending, replies: inputs.length };
}

const textOf = (content: z.infer<typeof Content> | null | undefined): string =>
  content == null ? '' : typeof content === 'string' ? content : content.map((p) => p.text ?? '').join('\n');

/** The command's first word (`edit 1:1\n…` → `edit`); `submit` ends the episode. */
export function sweAction(command: string): CanonicalTurn['action'] {
  const text = command.replace(/\s+$/, '');
  const word = /^\s*([^\s;|&<>()]+)/.exec(text)?.[1] ?? null;
  if (word === null) return { type: 'message', tool: null, text };
  return { type: word === 'submit' ? 'submit' : 'tool', tool: word, text };
}

function runConfig(file: string, replay: unknown, ctx: ImportContext): RunConfig {
  if (replay != null) {
    let value: unknown = replay;
    if (typeof replay === 'string') {
      try {
        value = JSON.parse(replay);
      } catch {
        ctx.warn('replay_config is not valid JSON; ignored');
        value = null;
      }
    }
    const parsed = ReplayConfig.safeParse(value);
    if (parsed.success) {
      const m = parsed.data.agent.model;
      return { model: m.name, costLimit: m.per_instance_cost_limit ?? null, taskId: parsed.data.problem_statement?.id ?? null };
    }
  }
  const argsPath = join(dirname(file), 'args.yaml');
  if (isRegularFile(argsPath)) {
    try {
      const parsed = ArgsYaml.safeParse(parseYaml(readFileSync(argsPath, 'utf8')));
      if (parsed.success) {
        const m = parsed.data.agent.model;
        return { model: m.model_name, costLimit: m.per_instance_cost_limit ?? null, taskId: null };
      }
      ctx.warn(`args.yaml: no agent.model.model_name (${describeIssue(parsed.error)})`);
    } catch (err) {
      ctx.warn(`args.yaml is not valid YAML (${err instanceof Error ? err.message.split('\n')[0] : String(err)}); ignored`);
    }
  }
  const dir = basename(dirname(file));
  const prefix = dir.includes('__') ? dir.slice(0, dir.indexOf('__')) : '';
  if (prefix) return { model: prefix, costLimit: null, taskId: null };
  ctx.warn('no model name in the file, args.yaml or the run directory name; using "unknown"');
  return { model: 'unknown', costLimit: null, taskId: null };
}

/** SWE-bench evaluation results: id lists, or a per-instance report `{<id>: {resolved: bool, …}}`. */
const EvaluationReport = z.record(z.string(), z.unknown());
const IdList = z.array(z.unknown());
const InstanceReport = z.object({ resolved: z.boolean() });

interface SidecarLabel {
  resolved: boolean;
  /** The sidecar's name (`results.json`, `report.json`). */
  source: string;
  /** A per-instance entry's tests and patch checks; absent for the id lists. */
  report?: HarnessReport;
}

/**
 * The instance's resolved / unresolved label from a sibling `results.json` or `report.json`
 * (`{resolved: [ids], unresolved: [ids]}`, also spelled `*_ids`, or per instance); null when none names it.
 */
function resolvedFromSidecar(dir: string, instanceIds: string[], ctx: ImportContext): SidecarLabel | null {
  for (const name of ['results.json', 'report.json']) {
    const path = join(dir, name);
    if (!isRegularFile(path)) continue;
    let value: unknown;
    try {
      value = JSON.parse(readFileSync(path, 'utf8'));
    } catch {
      ctx.warn(`${name} is not valid JSON; outcome left unknown`);
      continue;
    }
    const report = EvaluationReport.safeParse(value);
    if (!report.success) continue;
    const listed = (...keys: string[]): boolean =>
      keys.some((key) => {
        const list = IdList.safeParse(report.data[key]);
        return list.success && instanceIds.some((id) => list.data.includes(id));
      });
    if (listed('resolved', 'resolved_ids')) return { resolved: true, source: name };
    if (listed('unresolved', 'unresolved_ids')) return { resolved: false, source: name };
    for (const id of instanceIds) {
      const entry = InstanceReport.safeParse(report.data[id]);
      if (entry.success) return { resolved: entry.data.resolved, source: name, report: harnessReport(report.data[id] as Record<string, unknown>) };
    }
  }
  return null;
}

export const sweAgentImporter: Importer = {
  format: 'swe-agent',
  expects: 'a SWE-agent .traj: one JSON object with "trajectory" (or "history") and "info"',
  sidecars: [/^args\.yaml$/, /^all_preds\.jsonl$/, /^results\.json$/, /^report\.json$/, /^config\.yaml$/],

  detect(head, fileName) {
    if (!fileName.endsWith('.traj')) return false;
    const text = head.replace(/^\uFEFF/, '').trimStart();
    if (!text.startsWith('{') || !/"trajectory"\s*:/.test(text)) return false;
    // mini-swe-agent writes `.traj.json`, but be sure: its files name their format and carry `messages`.
    if (/"trajectory_format"\s*:/.test(text)) return false;
    // `history` and `info` follow the steps, so a head cut at 64 KiB by a long first step may not reach them.
    return /"(history|info)"\s*:/.test(text) || head.length >= 60_000;
  },

  async *read(file: string, ctx: ImportContext) {
    const fail = failAt(file);
    const text = readTextFile(file, ctx.onBytes);
    const value = parseJson(text, fail);
    const traj = decodeJson(Trajectory, value, text, [], fail);
    const instance = basename(file).replace(/\.traj$/, '');
    const config = runConfig(file, traj.replay_config, ctx);

    // The thought is the model's reasoning before the command, kept as the turn's reasoning (the action is the command).
    const steps: { action: string; observation: string | null; thought: string | null }[] = traj.trajectory.map((s) => ({
      action: s.action,
      observation: s.observation ?? null,
      thought: s.thought ?? null,
    }));
    if (steps.length === 0) {
      // Older or partial files: the model's replies are the non-demo assistant messages; each one's
      // observation is the environment's next message.
      for (const m of traj.history ?? []) {
        if (m.is_demo) continue;
        if (m.role === 'assistant') {
          // Without a parsed action the content is the whole reply, thought included: no separate reasoning then.
          const thought = m.action != null ? (m.thought ?? null) : null;
          steps.push({ action: m.action ?? textOf(m.content), observation: null, thought });
        }
        else if (m.role !== 'system') {
          const last = steps.at(-1);
          if (last) last.observation = last.observation === null ? textOf(m.content) : `${last.observation}\n${textOf(m.content)}`;
        }
      }
    }
    if (steps.length === 0) throw new ImportError(file, 1, 'no model steps: trajectory and history have none');

    const firstTask = (traj.history ?? []).find((m) => m.role === 'user' && !m.is_demo);
    const talk = conversationOf(traj.history ?? [], firstTask);
    // The history's replies are the steps when there are as many; otherwise which input went before which step is unknown.
    const aligned = talk.replies === steps.length;
    const unplaced = aligned ? [] : [...talk.inputs.flat(), ...talk.final];
    if (unplaced.length) {
      ctx.warn(`${talk.replies} replies in history but ${steps.length} steps: ${unplaced.length} message(s) between them kept as final messages`);
    }
    const finalMessages = aligned ? talk.final : unplaced;
    const label = resolvedFromSidecar(dirname(file), [instance, config.taskId].filter((x): x is string => !!x), ctx);
    const resolved = label?.resolved ?? null;
    const episode: CanonicalEpisode = {
      schema: CANONICAL_SCHEMA,
      run: ctx.runName ?? basename(dirname(file)),
      episode_id: instance,
      task: {
        id: config.taskId ?? instance,
        type: 'swe',
        text: firstTask ? textOf(firstTask.content) : null,
      },
      outcome: {
        score: resolved === null ? null : resolved ? 1 : 0,
        score_range: resolved === null ? null : [0, 1],
        success: resolved,
        exit: traj.info?.exit_status ?? null,
        // No target is logged: SWE-bench's gold patch is not in the run.
        answer: loggedText(traj.info?.submission),
        ...(label ? sweBenchOutcome(label.resolved, label.source, label.report) : {}),
      },
      budget: config.costLimit ? { mode: null, usd: config.costLimit, max_turns: null } : null,
      cost_usd: traj.info?.model_stats?.instance_cost ?? null,
      log_totals: logTotalsOf(traj.info?.model_stats),
      system_prompt: talk.systemPrompt,
      final_messages: finalMessages.length ? finalMessages : null,
      turns: steps.map((s, t) => ({
        t,
        model: config.model,
        action: sweAction(s.action),
        observation: s.observation,
        reasoning: s.thought?.trim() ? s.thought.trim() : null,
        inputs: aligned && talk.inputs[t]?.length ? talk.inputs[t] : null,
      })),
    };
    const checked = CanonicalEpisode.safeParse(episode);
    if (!checked.success) throw new ImportError(file, 1, describeIssue(checked.error));
    yield checked.data;
  },
};
