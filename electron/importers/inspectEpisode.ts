/**
 * One Inspect AI sample (EvalSample) → one canonical episode. Shared by the `.json` and `.eval` containers
 * (inspect.ts), which decode the log around it and say where a sample sits for error lines.
 *
 * Turns are the agent's model calls (`model` events). A model call made while a scorer runs — inside a
 * `scorer`/`scorers` span (new writers), between `step` begin/end of type `scorer` (old writers), after a final
 * `score` event, or with the model role `grader` — is a grader call: it goes to `grader_calls`, not the turns.
 * A turn's observation is the text of the `tool` events that follow it before the next model call. Samples
 * without model events (old logs) fall back to the assistant messages of `messages`.
 *
 * `messages` is the conversation as the agent left it: its first system message is the system prompt and its first
 * user message the task; every other message that is not a reply or a tool result (a user or system message the
 * solver added between calls, such as a basic agent's "please continue") is the next turn's input, or a final
 * message after the last reply. The sample's own `model_usage` (per model) is the log's total for the episode; the
 * log-level `stats.model_usage` adds up all samples, so it is no one episode's.
 *
 * The outcome is the first scorer's value (Inspect's letter grades read as value_to_float does); what explains it is
 * kept as logged: the sample's `target` and `choices`, the model's final output as the answer, and every scorer's
 * value, answer, explanation and metadata.
 */
import { z } from 'zod';
import {
  CANONICAL_SCHEMA, MAX_SCORERS, type CanonicalEpisode, type CanonicalTurn, type ConversationMessage, type OutcomeExplanation, type OutcomeScorer,
} from '../../shared/canonical.ts';
import { nameRecord } from '../../shared/nameRecord.ts';
import { decodeJson, type Fail, type JsonPath } from './jsonDocument.ts';
import { jsonRecord, jsonValue, loggedText, scorerName } from './outcomeValues.ts';

const count = z.number().int().nonnegative();

const ContentPart = z.object({
  type: z.string(),
  text: z.string().nullish(),
  reasoning: z.string().nullish(),
});
const Content = z.union([z.string(), z.array(ContentPart)]);

const ToolCall = z.object({
  function: z.string().min(1),
  arguments: z.unknown().optional(),
});

const ChatMessage = z.object({
  role: z.string(),
  content: Content.nullish(),
  model: z.string().nullish(),
  tool_calls: z.array(ToolCall).nullish(),
  function: z.string().nullish(),
});
type ChatMessage = z.infer<typeof ChatMessage>;

const Usage = z.object({
  input_tokens: count,
  output_tokens: count,
  total_tokens: count.nullish(),
  input_tokens_cache_read: count.nullish(),
  input_tokens_cache_write: count.nullish(),
  reasoning_tokens: count.nullish(),
  /** Newer writers record the provider's cost when it reports one. */
  total_cost: z.number().nonnegative().nullish(),
});
type Usage = z.infer<typeof Usage>;

const ModelEvent = z.object({
  model: z.string().min(1),
  role: z.string().nullish(),
  span_id: z.string().nullish(),
  pending: z.boolean().nullish(),
  working_time: z.number().nonnegative().nullish(),
  output: z.object({
    choices: z.array(z.object({ message: ChatMessage })),
    usage: Usage.nullish(),
    time: z.number().nonnegative().nullish(),
  }),
});

const ToolResult = z.union([z.string(), z.number(), z.boolean(), z.array(ContentPart)]);
const ToolEvent = z.object({
  function: z.string(),
  result: ToolResult.nullish(),
  error: z.object({ message: z.string() }).nullish(),
  events: z.array(z.unknown()).nullish(),
});

const SpanBegin = z.object({ id: z.string(), parent_id: z.string().nullish(), type: z.string().nullish() });
const SpanEnd = z.object({ id: z.string() });
const StepEvent = z.object({ action: z.enum(['begin', 'end']), type: z.string().nullish() });
const ScoreEvent = z.object({ intermediate: z.boolean().nullish() });
const AnyEvent = z.object({ event: z.string() });
const FinalOutput = z.object({
  completion: z.string().nullish(),
  choices: z.array(z.object({ message: z.object({ content: Content.nullish() }) })).nullish(),
});

const Score = z.object({
  value: z.union([z.string(), z.number(), z.boolean(), z.array(z.unknown()), z.record(z.string(), z.unknown())]).nullish(),
  // Read as logged whatever their type (outcomeValues.ts): a scorer's extra fields must not cost the sample its import.
  answer: z.unknown().optional(),
  explanation: z.unknown().optional(),
  metadata: z.unknown().optional(),
});

export const InspectSample = z.object({
  id: z.union([z.string().min(1), z.number()]),
  epoch: z.number().int().positive().default(1),
  input: z.union([z.string(), z.array(ChatMessage)]),
  /** What counted as right (a string, or a list of accepted answers) and a multiple-choice task's options, as logged. */
  target: z.unknown().optional(),
  choices: z.unknown().optional(),
  /** The model's final output (`completion`, else the first choice's message): read with FinalOutput, never refused. */
  output: z.unknown().optional(),
  messages: z.array(ChatMessage).default([]),
  // Keyed by scorer names the log wrote: nameRecord keeps one called `__proto__`, which z.record drops.
  scores: nameRecord(Score).nullish(),
  events: z.array(z.unknown()).default([]),
  attachments: z.record(z.string(), z.string()).default({}),
  error: z.object({ message: z.string() }).nullish(),
  limit: z.object({ type: z.string() }).nullish(),
  /** What the sample's model calls used, per model, as Inspect totals it. */
  // Keyed by model names the log wrote: nameRecord keeps a model called `__proto__`, which z.record drops.
  model_usage: nameRecord(Usage).nullish(),
});

/** What an episode needs from the log around its sample. */
export interface EvalContext {
  run: string;
  task: string;
  model: string;
  /** Add `_epoch<n>` to episode ids: the log has more than one epoch. */
  multiEpoch: boolean;
}

/** Where a sample sits, for error lines: its text, its JSON path in that text, and how to report. */
export interface SampleSource {
  text: string;
  at: JsonPath;
  fail: Fail;
}

export interface SampleResult {
  episode: CanonicalEpisode;
  graderCalls: number;
  unresolvedAttachments: number;
  /** Messages kept as final messages because the conversation's replies are not the turns. */
  unplacedMessages: number;
}

const ATTACHMENT = 'attachment://';
/** Nested tool events (older writers) deeper than this are not followed: a hostile file could nest forever. */
const MAX_EVENT_DEPTH = 32;

const GRADES = new Map([['C', 1], ['I', 0], ['P', 0.5], ['N', 0], ['yes', 1], ['no', 0], ['true', 1], ['false', 0]]);

/** Inspect's letter grades and the value_to_float conventions; null for values that are not one number. */
export function scoreValue(value: z.infer<typeof Score>['value']): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value !== 'string') return null;
  const grade = GRADES.get(value.trim()) ?? GRADES.get(value.trim().toLowerCase());
  if (grade !== undefined) return grade;
  const n = Number(value);
  return value.trim() !== '' && Number.isFinite(n) ? n : null;
}

/**
 * Token counts with `in` including cached input, as the canonical format has it. OpenAI-style usage
 * already counts cache reads in `input_tokens`; Anthropic-style usage does not, which shows in
 * `total_tokens` = input + output + cache read + cache write.
 */
export function inspectTokens(u: Usage): NonNullable<CanonicalTurn['tokens']> {
  const read = u.input_tokens_cache_read ?? 0;
  const write = u.input_tokens_cache_write ?? 0;
  const separate = read + write > 0 && u.total_tokens === u.input_tokens + u.output_tokens + read + write;
  return { in: separate ? u.input_tokens + read + write : u.input_tokens, out: u.output_tokens, cached: u.input_tokens_cache_read ?? null };
}

/** The sample's `model_usage` over all its models as the episode's log total; null when the sample has none. */
function logTotalsOf(usage: Record<string, Usage> | null | undefined): CanonicalEpisode['log_totals'] {
  const models = Object.values(usage ?? {});
  if (models.length === 0) return null;
  const sum = (f: (u: Usage) => number | null | undefined): number | null =>
    models.some((u) => f(u) != null) ? models.reduce((a, u) => a + (f(u) ?? 0), 0) : null;
  const all = (f: (u: Usage) => number | null | undefined): number | null => (models.every((u) => f(u) != null) ? sum(f) : null);
  return {
    source: 'the sample\'s model_usage',
    tokens: {
      in: sum((u) => inspectTokens(u).in),
      out: sum((u) => u.output_tokens),
      cached: sum((u) => u.input_tokens_cache_read),
      cache_write: sum((u) => u.input_tokens_cache_write),
      reasoning: sum((u) => u.reasoning_tokens),
    },
    cost_usd: all((u) => u.total_cost),
  };
}

const MESSAGE_ROLE: Record<string, ConversationMessage['role']> = { user: 'user', system: 'system', assistant: 'assistant', tool: 'tool' };

class SampleReader {
  unresolved = 0;
  constructor(
    private readonly attachments: Record<string, string>,
    private readonly source: SampleSource,
  ) {}

  resolve(text: string): string {
    if (!text.startsWith(ATTACHMENT)) return text;
    const found = this.attachments[text.slice(ATTACHMENT.length)];
    if (found === undefined) this.unresolved++;
    return found ?? text;
  }

  content(content: z.infer<typeof Content> | null | undefined): string {
    if (content == null) return '';
    if (typeof content === 'string') return this.resolve(content);
    return content
      .map((p) => this.resolve(p.text ?? (p.type === 'reasoning' ? '' : `[${p.type}]`)))
      .filter((s) => s !== '')
      .join('\n');
  }

  /** Assistant text, then one line per tool call: `function({"arg": …})`. */
  action(message: ChatMessage): CanonicalTurn['action'] {
    const calls = message.tool_calls ?? [];
    const lines = [this.content(message.content)];
    for (const call of calls) {
      const args =
        call.arguments === undefined
          ? ''
          : (JSON.stringify(call.arguments, (_key, v: unknown) => (typeof v === 'string' ? this.resolve(v) : v)) ?? '');
      lines.push(`${call.function}(${args})`);
    }
    const text = lines.filter((s) => s !== '').join('\n');
    const first = calls[0];
    return first ? { type: 'tool', tool: first.function, text } : { type: 'message', tool: null, text };
  }

  toolResult(e: z.infer<typeof ToolEvent>): string {
    const result = e.result == null ? '' : Array.isArray(e.result) ? this.content(e.result) : this.resolve(String(e.result));
    return e.error ? [result, `error: ${this.resolve(e.error.message)}`].filter((s) => s !== '').join('\n') : result;
  }

  decode<S extends z.ZodType>(schema: S, value: unknown, path: JsonPath): z.infer<S> {
    return decodeJson(schema, value, this.source.text, [...this.source.at, ...path], this.source.fail);
  }
}

interface PendingTurn {
  model: string;
  action: CanonicalTurn['action'];
  tokens: CanonicalTurn['tokens'];
  cost: number | null;
  latencyMs: number | null;
  observations: string[];
}

/** A target (one string, or a list of accepted answers) or a list of choices as logged; null when it is neither. */
function texts(value: unknown, r: SampleReader): string | string[] | null {
  if (Array.isArray(value)) {
    const list = value.map(loggedText);
    return list.every((x): x is string => x !== null) ? list.map((x) => r.resolve(x)) : null;
  }
  const text = loggedText(value);
  return text === null ? null : r.resolve(text);
}

/**
 * What explains the sample's outcome: its target and choices, the model's final output, and every scorer with its
 * value, answer, explanation and metadata, as logged (attachments resolved).
 */
function explanationOf(sample: z.infer<typeof InspectSample>, r: SampleReader): OutcomeExplanation {
  const output = FinalOutput.safeParse(sample.output);
  const final = output.success ? output.data : null;
  const firstChoice = final?.choices?.[0]?.message.content;
  const answer = final?.completion != null ? r.resolve(final.completion) : firstChoice != null ? r.content(firstChoice) : null;
  const choices = texts(sample.choices, r);
  const scorers: OutcomeScorer[] = Object.entries(sample.scores ?? {}).slice(0, MAX_SCORERS).map(([name, score]) => {
    const text = (v: unknown): string | null => {
      const t = loggedText(v);
      return t === null ? null : r.resolve(t);
    };
    return {
      name: scorerName(name),
      value: score.value === undefined ? null : jsonValue(score.value),
      answer: text(score.answer),
      explanation: text(score.explanation),
      metadata: jsonRecord(score.metadata),
    };
  });
  return {
    target: texts(sample.target, r),
    choices: Array.isArray(choices) ? choices : null,
    answer,
    scorers: scorers.length > 0 ? scorers : null,
  };
}

export function sampleToEpisode(value: unknown, ctx: EvalContext, source: SampleSource): SampleResult {
  const sample = decodeJson(InspectSample, value, source.text, source.at, source.fail);
  const r = new SampleReader(sample.attachments, source);

  const turns: PendingTurn[] = [];
  const graders: NonNullable<CanonicalEpisode['grader_calls']> = [];
  const spans = new Map<string, { type: string | null; parent: string | null }>();
  const openScorerSpans = new Set<string>();
  let scorerSteps = 0;
  let scored = false;

  const inScorerSpan = (spanId: string | null | undefined): boolean => {
    for (let id = spanId ?? null, hops = 0; id !== null && hops < 256; hops++) {
      const span = spans.get(id);
      if (!span) return false;
      if (span.type === 'scorer' || span.type === 'scorers') return true;
      id = span.parent;
    }
    return false;
  };

  const visit = (events: readonly unknown[], path: JsonPath, depth: number): void => {
    events.forEach((raw, j) => {
      const at = [...path, j];
      const { event } = r.decode(AnyEvent, raw, at);
      switch (event) {
        case 'span_begin': {
          const span = r.decode(SpanBegin, raw, at);
          spans.set(span.id, { type: span.type ?? null, parent: span.parent_id ?? null });
          if (span.type === 'scorer' || span.type === 'scorers') openScorerSpans.add(span.id);
          break;
        }
        case 'span_end':
          openScorerSpans.delete(r.decode(SpanEnd, raw, at).id);
          break;
        case 'step': {
          const step = r.decode(StepEvent, raw, at);
          if (step.type === 'scorer') scorerSteps = Math.max(0, scorerSteps + (step.action === 'begin' ? 1 : -1));
          break;
        }
        case 'score':
          if (!r.decode(ScoreEvent, raw, at).intermediate) scored = true;
          break;
        case 'model': {
          const e = r.decode(ModelEvent, raw, at);
          if (e.pending) break;
          const message = e.output.choices[0]?.message;
          const usage = e.output.usage;
          const tokens = usage ? inspectTokens(usage) : null;
          const cost = usage?.total_cost ?? null;
          const grader =
            e.role === 'grader' || scored || scorerSteps > 0 || openScorerSpans.size > 0 || inScorerSpan(e.span_id);
          if (grader) {
            graders.push({ model: e.model, tokens, cost_usd: cost, text: message ? r.action(message).text : null });
            break;
          }
          const seconds = e.working_time ?? e.output.time ?? null;
          turns.push({
            model: e.model,
            action: message ? r.action(message) : { type: 'message', tool: null, text: '' },
            tokens,
            cost,
            latencyMs: seconds === null ? null : Math.round(seconds * 1000),
            observations: [],
          });
          break;
        }
        case 'tool': {
          const e = r.decode(ToolEvent, raw, at);
          // Older writers nest what happened inside a tool (sub-agents' model calls) in the tool event.
          if (e.events?.length && depth < MAX_EVENT_DEPTH) visit(e.events, [...at, 'events'], depth + 1);
          turns.at(-1)?.observations.push(r.toolResult(e));
          break;
        }
        default:
          break;
      }
    });
  };
  visit(sample.events, ['events'], 0);

  let canonicalTurns: CanonicalTurn[];
  if (turns.length > 0) {
    canonicalTurns = turns.map((p, t) => ({
      t,
      model: p.model,
      action: p.action,
      observation: p.observations.length > 0 ? p.observations.join('\n') : null,
      tokens: p.tokens,
      cost_usd: p.cost,
      latency_ms: p.latencyMs,
    }));
  } else {
    // No model events (old logs): the assistant messages are the turns, the tool messages their observations.
    const fromMessages: { model: string; action: CanonicalTurn['action']; observations: string[] }[] = [];
    for (const m of sample.messages) {
      if (m.role === 'assistant') fromMessages.push({ model: m.model ?? ctx.model, action: r.action(m), observations: [] });
      else if (m.role === 'tool') fromMessages.at(-1)?.observations.push(r.content(m.content));
    }
    canonicalTurns = fromMessages.map((p, t) => ({
      t,
      model: p.model,
      action: p.action,
      observation: p.observations.length > 0 ? p.observations.join('\n') : null,
    }));
  }

  // The messages between replies, by reply: [0] before the first, [n] after the last.
  const between: ConversationMessage[][] = [[]];
  const firstReply = sample.messages.findIndex((m) => m.role === 'assistant');
  const beforeFirst = firstReply < 0 ? sample.messages : sample.messages.slice(0, firstReply);
  const systemPrompt = beforeFirst.find((m) => m.role === 'system');
  const taskMessage = beforeFirst.find((m) => m.role === 'user');
  for (const m of sample.messages) {
    if (m.role === 'assistant') between.push([]);
    else if (m.role !== 'tool' && m !== systemPrompt && m !== taskMessage) {
      between.at(-1)?.push({ role: MESSAGE_ROLE[m.role] ?? 'user', text: r.content(m.content) });
    }
  }
  const replies = between.length - 1;
  const aligned = replies === canonicalTurns.length;
  if (aligned) canonicalTurns.forEach((t, i) => (t.inputs = between[i]?.length ? between[i] : null));
  // A conversation whose replies are not the turns (an agent that rewrote its history): its messages are kept last.
  const finalMessages = aligned ? (between[replies] ?? []) : between.flat();
  const unplaced = aligned ? 0 : finalMessages.length;

  const explanation = explanationOf(sample, r);
  const firstScore = Object.values(sample.scores ?? {})[0];
  const score = firstScore ? scoreValue(firstScore.value) : null;
  const inUnitRange = score !== null && score >= 0 && score <= 1;
  const input = typeof sample.input === 'string' ? r.resolve(sample.input) : sample.input.map((m) => r.content(m.content)).join('\n\n');
  const exit = sample.error
    ? `error: ${r.resolve(sample.error.message).split('\n')[0] ?? ''}`.slice(0, 300)
    : sample.limit
      ? `${sample.limit.type} limit`.slice(0, 300)
      : null;

  const episode: CanonicalEpisode = {
    schema: CANONICAL_SCHEMA,
    run: ctx.run,
    episode_id: ctx.multiEpoch ? `${sample.id}_epoch${sample.epoch}` : String(sample.id),
    task: { id: String(sample.id), type: ctx.task, text: input },
    outcome: {
      score,
      score_range: inUnitRange ? [0, 1] : null,
      success: inUnitRange ? score >= 1 : null,
      exit,
      ...explanation,
    },
    grader_calls: graders.length > 0 ? graders : null,
    system_prompt: systemPrompt ? r.content(systemPrompt.content) : null,
    log_totals: logTotalsOf(sample.model_usage),
    final_messages: finalMessages.length ? finalMessages : null,
    turns: canonicalTurns,
  };
  return { episode, graderCalls: graders.length, unresolvedAttachments: r.unresolved, unplacedMessages: unplaced };
}
