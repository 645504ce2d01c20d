/**
 * One file's rows for the ClickHouse store straight from the episodes the writer resolved (EpisodeWriter.resolve):
 * no staging database between the importer and the inserts. Two things need the whole file, which this path does
 * not hold: an episode that appears twice (SQLite keeps the later one) and a parent that comes after a child that
 * was already settled without it. Either throws StageInstead, and the pipeline reads the file again through a
 * staging database (stagedRows.ts); the rows sent so far belong to an import id that never completes.
 */
import { behaviourMode } from '../../../../shared/behaviourModes.ts';
import { episodeDetail, outcomeExplanation, type ResolvedEpisode } from '../../../db/episodeWriter.ts';
import type { Reconciliation } from '../../../db/logTotals.ts';
import { StageInstead, type ImportedFile } from '../../../importers/pipeline.ts';
import {
  addEpisode, addTurnPart, addTurns, emptySummary, episodeKey, noteRun, sessionName, sessionsOf,
  type EpisodeRow, type FileSummary, type RowSink, type SessionEntry, type SessionEpisode, type SessionIndex, type TurnRow,
} from './episodeRows.ts';

/** A child whose parent is not yet known: held until its parent comes or the file ends. */
interface Waiting {
  e: SessionEpisode;
  r: ResolvedEpisode;
  planFrom: number;
  edgeFrom: number;
}

/** LOG_TOTALS_COLUMNS' values of a reconciliation, as SQLite's episode_log_totals row holds them. */
function logTotalsValues(r: Reconciliation | null): unknown[] | null {
  if (!r) return null;
  const k = (x: Reconciliation['logged']) => [x.requests, x.in, x.out, x.cached, x.cache_write, x.cache_write_1h, x.reasoning, x.cost];
  return [r.source, ...k(r.logged), ...k(r.counted), r.compared.length, r.differing, r.worstRel];
}

/** The episodes row's fields of a resolved episode, as SQLite would hand them back. */
function episodeRow(r: ResolvedEpisode, fileOrd: number, runPolicy: string | null): EpisodeRow {
  const { ep } = r;
  const firstModel = r.turns[0]?.model.id;
  return {
    run: ep.run, ext_id: ep.episode_id, task_id: ep.task.id ?? null, task_type: ep.task.type ?? null, task_category: ep.task.category ?? null,
    difficulty: r.difficulty, final_score: ep.outcome.score ?? null, score_norm: r.scoreNorm,
    success: ep.outcome.success == null ? null : ep.outcome.success ? 1 : 0,
    expert_call: r.turns.some((t) => t.model.id !== firstModel) ? 1 : 0,
    total_cost: r.totalCost, unpriced_turns: r.unpricedTurns, n_turns: ep.turns.length, n_switches: r.nSwitches, n_errors: r.nErrors,
    budget_mode: ep.budget?.mode ?? null, budget_usd: ep.budget?.usd ?? null, max_turns: ep.budget?.max_turns ?? null,
    train_step: ep.policy?.train_step ?? null, exit_reason: ep.outcome.exit ?? null, kind: ep.kind ?? null, agent: r.agent,
    parent_ext_id: ep.parent?.episode_id ?? null, started_at: ep.started_at ?? null, task_text: ep.task.text ?? null,
    system_prompt: ep.system_prompt ?? null, parent_t: ep.parent?.t ?? null, expected_steps: r.expectedSteps, detail: episodeDetail(ep),
    outcome: outcomeExplanation(ep),
    policy_name: ep.policy?.name ?? runPolicy, file_ord: fileOrd, log_totals: logTotalsValues(r.reconciliation),
  };
}

function turnRows(r: ResolvedEpisode): TurnRow[] {
  return r.turns.map((x, i) => {
    const { turn } = x;
    const k = turn.tokens;
    return {
      t: turn.t, model: x.model.name, prev_model: i > 0 ? (r.turns[i - 1]?.model.name ?? null) : null, switched: x.switched ? 1 : 0,
      max_severity: x.level, action_type: turn.action.type, tool: turn.action.tool ?? null,
      tokens_in: k?.in ?? null, tokens_out: k?.out ?? null, tokens_cached: k?.cached ?? null, tokens_cache_write: k?.cache_write ?? null,
      tokens_reasoning: k?.reasoning ?? null, tokens_cache_write_1h: k?.cache_write_1h ?? null, cost: x.cost, cost_source: x.costSource, latency_ms: turn.latency_ms ?? null,
      propensity: turn.propensity ?? null, error_mask: x.mask, verdict: turn.verify?.verdict ?? null,
      verify_correct: turn.verify?.correct == null ? null : turn.verify.correct ? 1 : 0, greedy_model: x.greedy?.name ?? null,
      was_greedy: turn.router?.was_greedy == null ? null : turn.router.was_greedy ? 1 : 0, beta: turn.router?.beta ?? null,
      role: turn.role ?? null, s_tilde: x.target?.s_tilde ?? null, penalty: x.target?.penalty ?? null,
      price_table: x.provenance?.price_table ?? null, price_version: x.provenance?.version ?? null, cache_tier: x.provenance?.cache_tier ?? null,
      action: turn.action.text ?? null, observation: turn.observation ?? null, detail: x.detail,
    };
  });
}

/** The plan-dag behaviour mode from the episode's own turns, as stagedRows reads it from plan_nodes. */
function modeOf(r: ResolvedEpisode): ReturnType<typeof behaviourMode> {
  if (!r.turns.some((t) => t.plan.length > 0)) return behaviourMode([]);
  return behaviourMode(r.turns.map((t) => ({ planSubtasks: t.plan.length > 0 ? t.plan.length : null, verdict: t.turn.verify?.verdict ?? null })));
}

/** The rows of one file, episode by episode as the importer reads them. */
export class DirectFile {
  readonly summary: FileSummary = emptySummary();
  private readonly keys = new Set<number>();
  private episodes = 0;
  /** Plan nodes and edges so far: their order in the file (a staging database's row ids). */
  private planNodes = 0;
  private planEdges = 0;
  private waiting: Waiting[] = [];
  private waitingTurns = 0;
  /** Parents children were settled without: one that comes later in the file needs the staging path. */
  private readonly settledWithout = new Set<string>();
  /** What the import knew of this file's episodes before it (a file replacing another): restored by forget(). */
  private readonly before = new Map<number, { rootKey: number; split: string | null } | undefined>();

  constructor(
    readonly importId: number,
    readonly file: ImportedFile,
    private readonly index: SessionIndex,
    private readonly sink: RowSink,
    /** Turns of waiting children that are settled at once (a lookup for their parents) rather than held. */
    private readonly waitTurns: number,
  ) {}

  async add(r: ResolvedEpisode): Promise<void> {
    const { ep } = r;
    const key = episodeKey(ep.run, ep.episode_id);
    if (this.keys.has(key) || this.settledWithout.has(sessionName(ep.run, ep.episode_id))) throw new StageInstead();
    this.keys.add(key);
    const e: SessionEpisode = { id: ++this.episodes, run: ep.run, ext_id: ep.episode_id, parent_ext_id: ep.parent?.episode_id ?? null, split: ep.task.split ?? null };
    noteRun(this.summary, { run: ep.run, source_format: this.file.format, source_path: this.file.shown, policy_name: ep.policy?.name ?? null, policy_kind: ep.policy?.kind ?? null });
    const w: Waiting = { e, r, planFrom: this.planNodes, edgeFrom: this.planEdges };
    const plan = planCounts(r);
    this.planNodes += plan.nodes;
    this.planEdges += plan.edges;
    if (e.parent_ext_id === null || e.parent_ext_id === e.ext_id) {
      this.write({ key, rootKey: key, split: e.split }, w);
    } else {
      const parent = this.index.known.get(episodeKey(e.run, e.parent_ext_id));
      if (parent) this.write({ key, rootKey: parent.rootKey, split: parent.split }, w);
      else {
        this.waiting.push(w);
        this.waitingTurns += ep.turns.length;
        if (this.waitingTurns >= this.waitTurns) await this.settle();
      }
    }
    if (this.sink.full()) await this.sink.flush();
  }

  /** The file's last episode was added: children still waiting are settled. */
  async finish(): Promise<FileSummary> {
    await this.settle();
    return this.summary;
  }

  /** The waiting children's roots: a parent among them, known by now, in the store, or none (standing alone). */
  private async settle(): Promise<void> {
    if (this.waiting.length === 0) return;
    const waiting = this.waiting;
    this.waiting = [];
    this.waitingTurns = 0;
    const sessions = await settleWaiting(waiting.map((w) => w.e), this.index, this.settledWithout);
    for (const w of waiting) {
      this.write(sessions.get(w.e.id) as SessionEntry, w);
      if (this.sink.full()) await this.sink.flush();
    }
  }

  /** The file is abandoned: its episodes are no parents for later files (nor for this one read through staging). */
  forget(): void {
    for (const [key, entry] of this.before) {
      if (entry) this.index.known.set(key, entry);
      else this.index.known.delete(key);
    }
    this.before.clear();
  }

  private write(s: SessionEntry, w: Waiting): void {
    const { e } = w;
    if (!this.before.has(s.key)) this.before.set(s.key, this.index.known.get(s.key));
    const runPolicy = this.summary.runs.find((x) => x.run === e.run)?.policy_name ?? null;
    writeEpisodeRows(this.sink, this.importId, s, w.r, { fileOrd: e.id, runPolicy, planFrom: w.planFrom, edgeFrom: w.edgeFrom }, this.index, this.summary);
  }
}

/**
 * The roots of children whose parents were not known when they came (a parent among them, known by now, in the
 * store, or none: standing alone). A parent found nowhere goes into `settledWithout`: if it comes later in the
 * file, its children were settled wrongly, and the file needs the staging path.
 */
export async function settleWaiting(waiting: readonly SessionEpisode[], index: SessionIndex, settledWithout: Set<string>): Promise<Map<number, SessionEntry>> {
  const sessions = await sessionsOf(waiting, index);
  const among = new Set(waiting.map((e) => sessionName(e.run, e.ext_id)));
  for (const e of waiting) {
    const parent = e.parent_ext_id as string;
    if (!among.has(sessionName(e.run, parent)) && !index.known.has(episodeKey(e.run, parent))) settledWithout.add(sessionName(e.run, parent));
  }
  return sessions;
}

/** Where an episode stands in its file: its place, its run's policy, and the plan nodes and edges before it. */
export interface FilePlace {
  fileOrd: number;
  runPolicy: string | null;
  planFrom: number;
  edgeFrom: number;
}

/** Every row of one resolved episode in session `s`, into `sink` (registered in `index` and `summary`). */
export function writeEpisodeRows(sink: RowSink, importId: number, s: SessionEntry, r: ResolvedEpisode, at: FilePlace, index: SessionIndex, summary: FileSummary): void {
  const head = addEpisode(sink, importId, s, episodeRow(r, at.fileOrd, at.runPolicy), modeOf(r), index, summary);
  addTurns(sink, importId, head, turnRows(r), summary);
  // The messages numbered as SQLite's writer numbers them (episodeMessages): each turn's inputs, then the final ones.
  let seq = 0;
  for (const turn of r.ep.turns) {
    for (const m of turn.inputs ?? []) addTurnPart(sink, 'messages', importId, head, [seq++, turn.t, m.role, m.text, m.timestamp ?? null]);
  }
  for (const m of r.ep.final_messages ?? []) addTurnPart(sink, 'messages', importId, head, [seq++, null, m.role, m.text, m.timestamp ?? null]);
  let node = at.planFrom;
  let edge = at.edgeFrom;
  r.turns.forEach((t, pos) => {
    for (const x of t.errors) addTurnPart(sink, 'turn_errors', importId, head, [pos, x.type, x.level, x.source]);
    for (const c of t.candidates) addTurnPart(sink, 'turn_candidates', importId, head, [pos, c.model.name, c.score]);
    const round = t.turn.plan?.round;
    for (const { sub, model } of t.plan) {
      addTurnPart(sink, 'plan_nodes', importId, head, [pos, round, ++node, sub.id, model?.name ?? null, sub.primitive ?? null, sub.status ?? null]);
      for (const dep of sub.depends_on) addTurnPart(sink, 'plan_edges', importId, head, [round, ++edge, dep, sub.id]);
    }
  });
}

/** The plan nodes and plan edges of an episode's turns (their ordinals in the file follow each other). */
export function planCounts(r: ResolvedEpisode): { nodes: number; edges: number } {
  let nodes = 0;
  let edges = 0;
  for (const t of r.turns) {
    nodes += t.plan.length;
    for (const p of t.plan) edges += p.sub.depends_on.length;
  }
  return { nodes, edges };
}
