/**
 * ATIF, the Agent Trajectory Interchange Format of Harbor (RFC 0001, any v1.x; `schema_version` "1.4" or
 * "ATIF-v1.4"). One episode per trajectory:
 * - `trajectory.json`: one object `{schema_version, session_id, agent, steps[], final_metrics, extra}`, read
 *   whole, with an optional `metrics.json` beside it (OpenAgents' Terminal-Bench runs: token totals with the
 *   cache reads and writes the trajectory leaves out, cost, success);
 * - `*.atif.jsonl`: the streaming variant (OpenAgents' StreamingWriter; Harbor's RFC describes no streaming
 *   form): a header line `{"__header__": true, schema_version, session_id, agent, created_at}`, then one step
 *   per line, with the final metrics and status in `<session>.index.json` beside it.
 *
 * Turns: atifSteps.ts. Model: the step's `model_name`, else the agent's. Cost: the steps' `metrics.cost_usd`
 * when they have it; otherwise `final_metrics.total_cost_usd` (or the sidecar's `cost`) is the episode's total.
 * When no step has metrics and every agent step used one model, the totals are also kept as that model's
 * `usage_totals`. Outcome: `extra.success` (else the sidecar's `success`); nothing else is read as one.
 */
import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import { CANONICAL_SCHEMA, CanonicalEpisode, MAX_COST_USD, MAX_TOKENS, describeIssue } from '../../shared/canonical.ts';
import { AtifAgent, AtifFinalMetrics, AtifStep, ATIF_VERSION, stepsToTurns, textOf } from './atifSteps.ts';
import { decodeJson, failAt, parseJson, readTextFile } from './jsonDocument.ts';
import { sniffJsonHead } from './jsonHead.ts';
import { readJsonLines } from './lineReader.ts';
import { isRegularFile } from './regularFile.ts';
import { ImportError, type ImportContext, type Importer } from './types.ts';

export const ATIF_FORMAT = 'atif';

const Version = z.string().regex(ATIF_VERSION, 'expected an ATIF 1.x schema_version ("1.4" or "ATIF-v1.4")');

const Header = z.looseObject({
  schema_version: Version,
  session_id: z.string().min(1).max(300),
  agent: AtifAgent,
  created_at: z.string().max(100).nullish(),
  parent_session_id: z.string().max(300).nullish(),
});

const Trajectory = Header.extend({
  steps: z.array(AtifStep),
  final_metrics: AtifFinalMetrics.nullish(),
  extra: z.looseObject({ success: z.boolean().nullish(), start_time: z.string().max(100).nullish() }).nullish(),
});
type Trajectory = z.infer<typeof Trajectory>;

const tokenCount = z.number().int().nonnegative().max(MAX_TOKENS);
/** OpenAgents' `metrics.json`: Anthropic-style counts, `input` without the cache reads and writes. */
const MetricsSidecar = z.looseObject({
  success: z.boolean().nullish(),
  start_time: z.string().max(100).nullish(),
  tokens: z
    .looseObject({
      input: tokenCount.nullish(),
      output: tokenCount.nullish(),
      cache_read: tokenCount.nullish(),
      cache_creation: tokenCount.nullish(),
    })
    .nullish(),
  cost: z.number().nonnegative().max(MAX_COST_USD).nullish(),
});
type MetricsSidecar = z.infer<typeof MetricsSidecar>;

const IndexSidecar = z.looseObject({
  status: z.string().max(100).nullish(),
  final_metrics: AtifFinalMetrics.nullish(),
});

/** Sidecars are small; anything bigger is not one of them. */
const MAX_SIDECAR_BYTES = 4 * 1024 * 1024;

function readSidecar<S extends z.ZodType>(path: string, schema: S, ctx: ImportContext): z.infer<S> | null {
  if (!isRegularFile(path)) return null;
  const name = basename(path);
  if (statSync(path).size > MAX_SIDECAR_BYTES) {
    ctx.warn(`${name} is larger than ${MAX_SIDECAR_BYTES} bytes; ignored`);
    return null;
  }
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    ctx.warn(`${name} is not valid JSON; ignored`);
    return null;
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    ctx.warn(`${name}: ${describeIssue(parsed.error)}; ignored`);
    return null;
  }
  return parsed.data;
}

function toEpisode(
  traj: Trajectory,
  sidecar: MetricsSidecar | null,
  exit: string | null,
  file: string,
  ctx: ImportContext,
): CanonicalEpisode {
  const read = stepsToTurns(traj.steps);
  const agentModel = traj.agent.model_name ?? traj.agent.model ?? null;
  let unknown = 0;
  const turns = read.turns.map((turn, i) => {
    const model = read.models[i] ?? agentModel;
    if (!model) unknown++;
    return { ...turn, model: model ?? 'unknown' };
  });
  if (unknown) ctx.warn(`${basename(file)}: ${unknown} agent step(s) name no model and the agent has no model_name: model "unknown"`);
  if (turns.length === 0) ctx.warn(`${basename(file)}: no agent step; an episode without turns`);

  const fm = traj.final_metrics;
  const total = read.withCost > 0 ? null : (fm?.total_cost_usd ?? sidecar?.cost ?? null);
  const models = new Set(turns.map((t) => t.model));
  const only = models.size === 1 ? [...models][0] : undefined;
  let usage_totals: CanonicalEpisode['usage_totals'] = null;
  if (read.withMetrics === 0 && only !== undefined && (fm || sidecar?.tokens)) {
    const s = sidecar?.tokens;
    // The sidecar's input leaves the cache out (its total is input + output): added back, as `in` counts all input.
    const tokens = s
      ? {
          in: s.input == null ? null : s.input + (s.cache_read ?? 0) + (s.cache_creation ?? 0),
          out: s.output ?? null,
          cached: s.cache_read ?? null,
          cache_write: s.cache_creation ?? null,
        }
      : { in: fm?.total_prompt_tokens ?? null, out: fm?.total_completion_tokens ?? null, cached: fm?.total_cached_tokens ?? null };
    usage_totals = [{ model: only, requests: turns.length, tokens, cost_usd: total }];
  }
  const success = traj.extra?.success ?? sidecar?.success ?? null;
  const episode: CanonicalEpisode = {
    schema: CANONICAL_SCHEMA,
    run: ctx.runName ?? ATIF_FORMAT,
    episode_id: traj.session_id,
    task: { id: traj.session_id, type: ATIF_FORMAT, text: read.taskText ?? textOf((traj.extra as { instruction?: unknown } | null)?.instruction) },
    outcome: {
      success,
      score: success === null ? null : success ? 1 : 0,
      score_range: success === null ? null : [0, 1],
      exit,
    },
    agent: { name: traj.agent.name ?? null, version: traj.agent.version ?? null },
    started_at: traj.extra?.start_time ?? sidecar?.start_time ?? traj.created_at ?? traj.steps[0]?.timestamp ?? null,
    system_prompt: read.systemPrompt,
    cost_usd: total,
    usage_totals,
    parent: traj.parent_session_id ? { episode_id: traj.parent_session_id } : null,
    kind: traj.parent_session_id ? 'subagent' : null,
    log_totals: fm && [fm.total_prompt_tokens, fm.total_completion_tokens, fm.total_cached_tokens, fm.total_cost_usd].some((v) => v != null)
      ? {
          source: 'final_metrics',
          tokens: { in: fm.total_prompt_tokens ?? null, out: fm.total_completion_tokens ?? null, cached: fm.total_cached_tokens ?? null },
          cost_usd: fm.total_cost_usd ?? null,
        }
      : null,
    final_messages: read.finalMessages.length ? read.finalMessages : null,
    turns,
  };
  const parsed = CanonicalEpisode.safeParse(episode);
  if (!parsed.success) throw new ImportError(file, 1, describeIssue(parsed.error));
  return parsed.data;
}

function readWhole(file: string, ctx: ImportContext): CanonicalEpisode {
  const fail = failAt(file);
  const text = readTextFile(file, ctx.onBytes);
  const traj = decodeJson(Trajectory, parseJson(text, fail), text, [], fail);
  const sidecar = readSidecar(join(dirname(file), 'metrics.json'), MetricsSidecar, ctx);
  return toEpisode(traj, sidecar, null, file, ctx);
}

/** Steps of one trajectory are held until its end (one episode); lines are bounded. */
const MAX_LINE_BYTES = 64 * 1024 * 1024;

async function readStream(file: string, ctx: ImportContext): Promise<CanonicalEpisode> {
  let header: z.infer<typeof Header> | null = null;
  const steps: AtifStep[] = [];
  // parseJson also refuses nesting too deep to re-serialise (tool arguments are kept as JSON text).
  const lines = readJsonLines(file, { maxLineBytes: MAX_LINE_BYTES, onBytes: ctx.onBytes, parse: parseJson });
  for await (const { lineNo, value } of lines) {
    const parsed = header === null ? Header.safeParse(value) : AtifStep.safeParse(value);
    if (!parsed.success) {
      throw new ImportError(file, lineNo, `${header === null ? 'header: ' : ''}${describeIssue(parsed.error)}`);
    }
    if (header === null) header = parsed.data as z.infer<typeof Header>;
    else steps.push(parsed.data as AtifStep);
  }
  if (header === null) throw new ImportError(file, 1, 'empty file: no ATIF header line');
  const stem = basename(file).replace(/\.atif\.jsonl$/i, '');
  const index =
    readSidecar(join(dirname(file), `${header.session_id}.index.json`), IndexSidecar, ctx) ??
    (stem !== header.session_id ? readSidecar(join(dirname(file), `${stem}.index.json`), IndexSidecar, ctx) : null);
  return toEpisode({ ...header, steps, final_metrics: index?.final_metrics ?? null, extra: null }, null, index?.status ?? null, file, ctx);
}

/** The streaming form opens with its header object (`__header__`); a trajectory.json with the trajectory. */
function isStream(file: string): boolean {
  // A FIFO or a device would block the open below: refused first.
  if (!isRegularFile(file)) throw new ImportError(file, 1, 'not a regular file');
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(64 * 1024);
    const got = readSync(fd, buf, 0, buf.length, 0);
    return sniffJsonHead(buf.subarray(0, got).toString('utf8')).keys.includes('__header__');
  } finally {
    closeSync(fd);
  }
}

export const atifImporter: Importer = {
  format: ATIF_FORMAT,
  expects: 'an ATIF trajectory: a JSON object with schema_version ("1.x" / "ATIF-v1.x"), session_id, agent and steps, or .atif.jsonl (a header line, then one step per line)',
  sidecars: [/^metrics\.json$/, /\.index\.json$/],

  detect(head) {
    const sniff = sniffJsonHead(head);
    if (sniff.container !== 'object') return false;
    const version = sniff.strings.get('schema_version');
    if (version === undefined || !ATIF_VERSION.test(version)) return false;
    return sniff.keys.includes('steps') || sniff.keys.includes('__header__') || sniff.keys.includes('session_id');
  },

  async *read(file: string, ctx: ImportContext) {
    yield isStream(file) ? await readStream(file, ctx) : readWhole(file, ctx);
  },
};
