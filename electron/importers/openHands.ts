/**
 * OpenHands logs, three kinds of file under one format id:
 * - a saved trajectory: a bare JSON array of events (one episode, named after the file; OpenHands writes no
 *   session id into it);
 * - a server session's `metadata.json`, read with the event files beside it (openHandsSession.ts): one episode
 *   whose id is the conversation id;
 * - evaluation or resolver output: JSON Lines, one instance per line with its `history`, `metrics`
 *   (`accumulated_cost`, `costs[]`, `token_usages[]`) and `metadata.llm_config.model` (one episode per line).
 *
 * Turns come from openHandsEvents.ts. Model per turn: the call's own `model_response.model`, else the run's
 * `metadata.llm_config.model`, else the previous call's (noted), else "unknown" (warned).
 * Costs: `metrics.costs[i]` is the i-th call's cost when there are as many costs as calls (the writers append
 * one per completion); otherwise only `accumulated_cost` is kept, as the episode's total.
 * Outcome: a resolver line's `success` is the resolver's own verdict (an LLM review of the fix, the value on
 * which it opens a pull request), so it is taken as the outcome; an evaluation line has an outcome only when
 * `test_result` carries a boolean `resolved` (SWE-bench's label lives in a separate report otherwise).
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { basename } from 'node:path';
import { z } from 'zod';
import { CANONICAL_SCHEMA, CanonicalEpisode, MAX_COST_USD, MAX_LATENCY_MS, MAX_TOKENS, describeIssue, type CanonicalTurn } from '../../shared/canonical.ts';
import { decodeJson, failAt, parseJson, readTextFile } from './jsonDocument.ts';
import { sniffJsonHead } from './jsonHead.ts';
import { readJsonLines } from './lineReader.ts';
import { isRegularFile } from './regularFile.ts';
import { OpenHandsCost, OpenHandsEvent, OpenHandsHistory, readEvents, type EventReading } from './openHandsEvents.ts';
import { CACHE_PAGE, EVENT_FILE, isSessionMetadata, readSession, sessionTotals } from './openHandsSession.ts';
import { ImportError, type ImportContext, type Importer } from './types.ts';

export const OPENHANDS_FORMAT = 'openhands';

/** One instance per line; lines of a real run reach tens of MB (histories with file contents). */
const MAX_LINE_BYTES = 256 * 1024 * 1024;

const OutputLine = z.looseObject({
  instance_id: z.union([z.string().max(300), z.number().int()]).nullish(),
  issue: z.looseObject({ owner: z.string().max(100).nullish(), repo: z.string().max(200).nullish(), number: z.number().int().nullish() }).nullish(),
  instruction: z.string().nullish(),
  history: OpenHandsHistory.nullish(),
  metrics: z
    .looseObject({
      accumulated_cost: z.number().nonnegative().max(MAX_COST_USD).nullish(),
      accumulated_token_usage: z
        .looseObject({
          prompt_tokens: z.number().int().nonnegative().max(MAX_TOKENS).nullish(),
          completion_tokens: z.number().int().nonnegative().max(MAX_TOKENS).nullish(),
          cache_read_tokens: z.number().int().nonnegative().max(MAX_TOKENS).nullish(),
          cache_write_tokens: z.number().int().nonnegative().max(MAX_TOKENS).nullish(),
        })
        .nullish(),
      costs: z.array(OpenHandsCost).nullish(),
      response_latencies: z
        .array(z.looseObject({ latency: z.number().nonnegative().max(MAX_LATENCY_MS / 1000), response_id: z.string().nullish() }))
        .nullish(),
    })
    .nullish(),
  metadata: z
    .looseObject({
      agent_class: z.string().max(200).nullish(),
      dataset: z.string().max(200).nullish(),
      llm_config: z.looseObject({ model: z.string().max(300).nullish() }).nullish(),
    })
    .nullish(),
  test_result: z.looseObject({ resolved: z.unknown().optional(), report: z.looseObject({ resolved: z.unknown().optional() }).nullish() }).nullish(),
  success: z.boolean().nullish(),
  error: z.string().nullish(),
});
type OutputLine = z.infer<typeof OutputLine>;

const EventArray = z.array(OpenHandsEvent);

const EVENT_KEYS = ['id', 'timestamp', 'source'];

/**
 * The model a call that logged none is given. An evaluation's configured model (`llm_config.model`) is the run's
 * own setting and comes before the previous call's; a session's `llm_model` is its latest setting, written with a
 * provider prefix the responses lack, so the previous call's model comes first there.
 */
interface RunModel {
  name: string;
  from: string;
  beforePrevious: boolean;
}

/** Fills in each turn's model and per-call cost; returns the turns and what had to be inferred. */
function finishTurns(
  reading: EventReading,
  runModel: RunModel | null,
  costs: number[] | null,
  latencies: Map<string, number>,
  warn: (m: string) => void,
  where: string,
): CanonicalTurn[] {
  let previous: string | null = null;
  let unknown = 0;
  const turns = reading.turns.map(({ turn, model, responseId }, t) => {
    const notes: string[] = [];
    let name = model;
    if (name) previous = name;
    else if (runModel && (runModel.beforePrevious || !previous)) {
      name = runModel.name;
      notes.push(`model from ${runModel.from} (the call logged none)`);
    } else if (previous) {
      name = previous;
      notes.push('model inferred from the previous call (this one logged no model_response)');
    } else {
      name = 'unknown';
      unknown++;
    }
    const latency = responseId ? latencies.get(responseId) : undefined;
    return {
      ...turn,
      t,
      model: name,
      cost_usd: costs ? (costs[t] ?? null) : null,
      latency_ms: latency !== undefined ? latency * 1000 : null,
      notes: notes.length ? notes : null,
    };
  });
  if (unknown) warn(`${where}: ${unknown} call(s) name no model and the log has no llm_config: model "unknown"`);
  return turns;
}

const configured = (model: string | null | undefined): RunModel | null =>
  model ? { name: model, from: 'metadata.llm_config.model', beforePrevious: true } : null;

function checked(episode: CanonicalEpisode, file: string, line: number): CanonicalEpisode {
  const parsed = CanonicalEpisode.safeParse(episode);
  if (!parsed.success) throw new ImportError(file, line, describeIssue(parsed.error));
  return parsed.data;
}

/** An evaluation line's own totals: `metrics.accumulated_cost`, `accumulated_token_usage`, one `costs` entry per completion. */
function outputTotals(metrics: OutputLine['metrics']): CanonicalEpisode['log_totals'] {
  if (!metrics) return null;
  const usage = metrics.accumulated_token_usage;
  const costs = metrics.costs?.length ?? 0;
  const totals = {
    source: 'metrics',
    cost_usd: metrics.accumulated_cost ?? null,
    requests: costs > 0 ? costs : null,
    tokens: usage
      ? { in: usage.prompt_tokens ?? null, out: usage.completion_tokens ?? null, cached: usage.cache_read_tokens ?? null, cache_write: usage.cache_write_tokens ?? null }
      : null,
  };
  return totals.cost_usd === null && totals.requests === null && totals.tokens === null ? null : totals;
}

function resolvedOf(line: OutputLine): boolean | null {
  const r = line.test_result?.resolved ?? line.test_result?.report?.resolved;
  return typeof r === 'boolean' ? r : null;
}

function outputEpisode(line: OutputLine, file: string, lineNo: number, ctx: ImportContext): CanonicalEpisode | null {
  const issue = line.issue;
  const repo = issue?.owner && issue.repo ? `${issue.owner}/${issue.repo}` : null;
  const id =
    line.instance_id != null ? String(line.instance_id) : repo && issue?.number != null ? `${repo}#${issue.number}` : `line-${lineNo}`;
  const reading = readEvents(line.history ?? []);
  if (reading.turns.length === 0) {
    ctx.warn(`${basename(file)}:${lineNo}: instance ${id} has no agent action in its history; skipped`);
    return null;
  }
  const rawCosts = line.metrics?.costs ?? null;
  const costs = rawCosts?.map((c) => (typeof c === 'number' ? c : c.cost)) ?? null;
  const perCall = costs !== null && costs.length === reading.turns.length;
  if (costs !== null && costs.length > 0 && !perCall) {
    ctx.warn(`${basename(file)}:${lineNo}: ${costs.length} costs for ${reading.turns.length} calls; only accumulated_cost kept`);
  }
  // A cost entry that names its model is a better witness than the run's configured model.
  rawCosts?.forEach((c, i) => {
    const draft = reading.turns[i];
    if (perCall && draft && !draft.model && typeof c === 'object' && c.model) draft.model = c.model;
  });
  const latencies = new Map<string, number>();
  for (const l of line.metrics?.response_latencies ?? []) if (l.response_id) latencies.set(l.response_id, l.latency);

  const resolverSuccess = line.success ?? null;
  const resolved = resolvedOf(line);
  const success = resolved ?? resolverSuccess;
  const project = issue?.repo ?? null;
  return checked(
    {
      schema: CANONICAL_SCHEMA,
      run: ctx.runName ?? (project ? `${OPENHANDS_FORMAT}/${project}` : OPENHANDS_FORMAT),
      episode_id: id,
      task: {
        id,
        type: line.metadata?.dataset ?? OPENHANDS_FORMAT,
        category: repo,
        text: reading.taskText ?? line.instruction ?? null,
      },
      outcome: {
        success,
        score: success === null ? null : success ? 1 : 0,
        score_range: success === null ? null : [0, 1],
        exit: line.error ?? null,
      },
      agent: { name: line.metadata?.agent_class ?? 'openhands', version: null },
      started_at: reading.startedAt,
      system_prompt: reading.systemPrompt,
      cost_usd: perCall ? null : (line.metrics?.accumulated_cost ?? null),
      log_totals: outputTotals(line.metrics),
      final_messages: reading.finalMessages.length > 0 ? reading.finalMessages : null,
      turns: finishTurns(reading, configured(line.metadata?.llm_config?.model), perCall ? costs : null, latencies, ctx.warn, `${basename(file)}:${lineNo}`),
    },
    file,
    lineNo,
  );
}

async function* readOutput(file: string, ctx: ImportContext): AsyncGenerator<CanonicalEpisode> {
  const seen = new Map<string, number>();
  // parseJson also refuses nesting too deep to re-serialise (tool arguments are kept as JSON text).
  const lines = readJsonLines(file, { maxLineBytes: MAX_LINE_BYTES, onBytes: ctx.onBytes, parse: parseJson });
  for await (const { lineNo, value } of lines) {
    const parsed = OutputLine.safeParse(value);
    if (!parsed.success) throw new ImportError(file, lineNo, describeIssue(parsed.error));
    const episode = outputEpisode(parsed.data, file, lineNo, ctx);
    if (!episode) continue;
    const first = seen.get(episode.episode_id);
    if (first !== undefined) throw new ImportError(file, lineNo, `duplicate instance "${episode.episode_id}" (first on line ${first})`);
    seen.set(episode.episode_id, lineNo);
    yield episode;
  }
}

function readTrajectory(file: string, ctx: ImportContext): CanonicalEpisode {
  const fail = failAt(file);
  const text = readTextFile(file, ctx.onBytes);
  const events = decodeJson(EventArray, parseJson(text, fail), text, [], fail);
  const reading = readEvents(events);
  if (reading.turns.length === 0) throw new ImportError(file, 1, 'no agent action in the event list');
  const id = basename(file).replace(/\.json$/i, '');
  return checked(
    {
      schema: CANONICAL_SCHEMA,
      run: ctx.runName ?? OPENHANDS_FORMAT,
      episode_id: id,
      task: { id, type: OPENHANDS_FORMAT, text: reading.taskText },
      outcome: { exit: reading.lastState },
      agent: { name: 'openhands', version: null },
      started_at: reading.startedAt,
      system_prompt: reading.systemPrompt,
      final_messages: reading.finalMessages.length > 0 ? reading.finalMessages : null,
      turns: finishTurns(reading, null, null, new Map(), ctx.warn, basename(file)),
    },
    file,
    1,
  );
}

function readServerSession(file: string, ctx: ImportContext): CanonicalEpisode {
  const { metadata, events } = readSession(file, ctx);
  const reading = readEvents(events);
  const id = metadata.conversation_id;
  if (reading.turns.length === 0) throw new ImportError(file, 1, `session ${id}: no agent action among its ${events.length} events`);
  return checked(
    {
      schema: CANONICAL_SCHEMA,
      run: ctx.runName ?? OPENHANDS_FORMAT,
      episode_id: id,
      task: { id, type: OPENHANDS_FORMAT, category: metadata.selected_repository ?? null, text: reading.taskText },
      outcome: { exit: reading.lastState },
      agent: { name: 'openhands', version: null },
      started_at: reading.startedAt ?? metadata.created_at ?? null,
      system_prompt: reading.systemPrompt,
      log_totals: sessionTotals(metadata),
      final_messages: reading.finalMessages.length > 0 ? reading.finalMessages : null,
      turns: finishTurns(
        reading, metadata.llm_model ? { name: metadata.llm_model, from: 'metadata.json llm_model', beforePrevious: false } : null,
        null, new Map(), ctx.warn, `session ${id}`,
      ),
    },
    file,
    1,
  );
}

/** Evaluation / resolver output: an object line with an instruction and a history or the resolver's fields. */
function isOutputLine(keys: string[]): boolean {
  const has = (k: string) => keys.includes(k);
  if (has('instruction') && (has('history') || has('issue_type') || has('test_result') || has('metrics'))) return true;
  return has('instance_id') && has('history') && (has('metadata') || has('metrics'));
}

export const openHandsImporter: Importer = {
  format: OPENHANDS_FORMAT,
  expects:
    'an OpenHands log: a JSON array of events ({id, timestamp, source, action|observation}) or evaluation / resolver output (JSON Lines with "instruction" and "history")',

  sidecars: [CACHE_PAGE, EVENT_FILE],

  detect(head, fileName) {
    const sniff = sniffJsonHead(head);
    // A session's cache page repeats events its events/ folder holds: the session is read from its metadata.json.
    if (CACHE_PAGE.test(fileName)) return false;
    if (sniff.container === 'array') {
      // An event, not a chat message (mini-swe-agent's legacy bare array is `[{role, content}, …]`).
      const first = sniff.keys;
      return EVENT_KEYS.every((k) => first.includes(k)) && (first.includes('action') || first.includes('observation'));
    }
    return sniff.container === 'object' && (isOutputLine(sniff.keys) || isSessionMetadata(sniff.keys, fileName));
  },

  async *read(file: string, ctx: ImportContext) {
    if (basename(file) === 'metadata.json' && !opensWithArray(file)) {
      yield readServerSession(file, ctx);
      return;
    }
    if (opensWithArray(file)) {
      yield readTrajectory(file, ctx);
      return;
    }
    yield* readOutput(file, ctx);
  },
};

/** Whether the file opens with `[` (a saved event list) rather than a JSON Lines object. */
function opensWithArray(file: string): boolean {
  // A FIFO or a device would block the open below: refused first, as every reader here does.
  if (!isRegularFile(file)) throw new ImportError(file, 1, 'not a regular file');
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(1024);
    const got = readSync(fd, buf, 0, buf.length, 0);
    return /^\uFEFF?\s*\[/.test(buf.subarray(0, got).toString('utf8'));
  } finally {
    closeSync(fd);
  }
}
