/**
 * Crush (charmbracelet's coding agent) session databases: `.crush/crush.db`, SQLite. One episode per session; a
 * session with a `parent_session_id` is a child episode: `subagent` for the agent tool's sessions (id = the tool
 * call's id, or `<message id>$$<tool call id>` since late 2025), linked to the parent turn that made the call;
 * `title` for `title-<parent id>` sessions. Turns are in crushSession.ts, the guarded reading in crushDatabase.ts.
 *
 * What Crush's sessions table records, read from its source (charmbracelet/crush, `TrackUsage` in
 * internal/llm/agent/agent.go in August 2025, `updateSessionUsage` in internal/agent/agent.go since):
 * - `cost` is a running total in USD, priced by Crush from its own model table, and the agent tool adds each
 *   finished sub-agent session's total to its parent's. The episode's `cost_usd` is the session's own share:
 *   its cost less that of the sub-agent sessions whose agent call came back without error (those were added).
 *   Since late 2025 it also holds the title-generation call, which leaves no message. Crush writes 0 for a model it
 *   has no price for, so a $0 session that used a model not marked `:free` has an unknown cost, not $0.
 * - `prompt_tokens` / `completion_tokens` are the latest call's usage (the context gauge), set, not added: in the
 *   sample, 172 completion tokens for a session whose 24 responses hold 14,435 characters. They are not totals,
 *   so they are neither `log_totals` nor `usage_totals`, and no turn has tokens.
 * Nothing is split over turns: every turn has null tokens and cost; the log's own figure is `log_totals`.
 */
import { basename, dirname, resolve } from 'node:path';
import { CANONICAL_SCHEMA, CanonicalEpisode, describeIssue } from '../../shared/canonical.ts';
import { CrushDatabase, SQLITE_MAGIC, type CrushSession } from './crushDatabase.ts';
import { sessionContent, isoTime, type CallSite } from './crushSession.ts';
import { ImportError, type ImportContext, type Importer } from './types.ts';

const FORMAT = 'crush';
/** Below this a difference of two of Crush's float sums is rounding, not money. */
const COST_EPSILON = 1e-9;

/** The project a `.crush/crush.db` belongs to: the folder holding `.crush`, else the database's own folder. */
function projectOf(file: string): string | null {
  const dir = dirname(resolve(file));
  const name = basename(dir);
  return (name === '.crush' ? basename(dirname(dir)) : name) || null;
}

/** The tool call an agent-tool session was created for: its id, or the part after `$$` in newer ids. */
function launchingCall(sessionId: string): string {
  const at = sessionId.indexOf('$$');
  return at === -1 ? sessionId : sessionId.slice(at + 2);
}

const kindOf = (s: CrushSession): 'title' | 'subagent' => (s.id.startsWith('title-') ? 'title' : 'subagent');

/** OpenRouter's free variants: a $0 total for them is a real $0. */
const isFree = (model: string): boolean => model.endsWith(':free');

/** Sessions with each child after its parent; a session whose parent is missing or in a loop comes as a root. */
function treeOrder(sessions: CrushSession[]): { order: { s: CrushSession; parent: CrushSession | null }[]; missing: number; looped: number } {
  const byId = new Map(sessions.map((s) => [s.id, s]));
  const children = new Map<string, CrushSession[]>();
  let missing = 0;
  const roots: CrushSession[] = [];
  for (const s of sessions) {
    if (s.parentId === null) roots.push(s);
    else if (!byId.has(s.parentId) || s.parentId === s.id) {
      missing += s.parentId === s.id ? 0 : 1;
      roots.push(s);
    } else children.set(s.parentId, [...(children.get(s.parentId) ?? []), s]);
  }
  const order: { s: CrushSession; parent: CrushSession | null }[] = [];
  const placed = new Set<string>();
  const stack = roots.reverse().map((s) => ({ s, parent: null as CrushSession | null }));
  const drain = (): void => {
    for (let next = stack.pop(); next; next = stack.pop()) {
      if (placed.has(next.s.id)) continue;
      placed.add(next.s.id);
      order.push(next);
      for (const c of [...(children.get(next.s.id) ?? [])].reverse()) stack.push({ s: c, parent: next.s });
    }
  };
  drain();
  // What is left hangs off a loop of parents (a damaged table): each comes as a root, unlinked.
  let looped = 0;
  for (const s of sessions) {
    if (placed.has(s.id)) continue;
    looped++;
    stack.push({ s, parent: null });
    drain();
  }
  return { order, missing, looped };
}

class FileReport {
  unknownParts = new Map<string, number>();
  strayResults = 0;
  unknownZero = 0;
  belowChildren = 0;

  emit(file: string, ctx: ImportContext, tree: { missing: number; looped: number }, gauges: boolean, orphans: number): void {
    const warn = (m: string): void => ctx.warn(`${file}: ${m}`);
    if (gauges) {
      warn("Crush's sessions table keeps the latest call's prompt/completion tokens (its context gauge), not totals: not imported as tokens");
    }
    if (this.unknownZero > 0) {
      warn(`${this.unknownZero} session(s) with $0 in Crush's cost used a model it may have had no price for: their cost is unknown, not $0`);
    }
    if (this.belowChildren > 0) {
      warn(`${this.belowChildren} session(s) cost less than the sub-agent sessions added to them: their own cost is unknown`);
    }
    if (tree.missing > 0) warn(`${tree.missing} session(s) name a parent session not in this database: imported without a parent`);
    if (tree.looped > 0) warn(`${tree.looped} session(s) are in a loop of parent sessions: imported without a parent`);
    if (orphans > 0) warn(`${orphans} message(s) belong to no session in this database: not imported`);
    if (this.strayResults > 0) warn(`${this.strayResults} tool result(s) answer no tool call of their session: kept as tool messages`);
    if (this.unknownParts.size > 0) {
      const list = [...this.unknownParts].map(([type, n]) => `${JSON.stringify(type.slice(0, 40))} ×${n}`).join(', ');
      warn(`message parts of types this importer does not read were left out: ${list}`);
    }
  }
}

/** The session's own cost: Crush's total less what its finished sub-agent sessions added to it. */
function ownCost(
  s: CrushSession,
  children: readonly CrushSession[],
  calls: ReadonlyMap<string, CallSite>,
): { cost: number | null; included: boolean; belowChildren: boolean } {
  const added = children.filter((c) => kindOf(c) === 'subagent' && calls.get(launchingCall(c.id))?.succeeded);
  if (s.cost === null || added.some((c) => c.cost === null)) return { cost: null, included: added.length > 0, belowChildren: false };
  const own = added.reduce((a, c) => a - (c.cost ?? 0), s.cost);
  if (own < -COST_EPSILON) return { cost: null, included: true, belowChildren: true };
  return { cost: Math.max(0, Math.round(own * 1e12) / 1e12), included: added.length > 0, belowChildren: false };
}

async function* readSessions(file: string, db: CrushDatabase, ctx: ImportContext): AsyncGenerator<CanonicalEpisode> {
  const sessions = db.sessions();
  const seen = new Set<string>();
  for (const s of sessions) {
    if (seen.has(s.id)) throw new ImportError(file, 0, `session ${s.id} appears twice in the sessions table`);
    seen.add(s.id);
  }
  const tree = treeOrder(sessions);
  const childrenOf = new Map<string, CrushSession[]>();
  for (const { s, parent } of tree.order) if (parent) childrenOf.set(parent.id, [...(childrenOf.get(parent.id) ?? []), s]);
  const sites = new Map<string, ReadonlyMap<string, CallSite>>();
  const project = projectOf(file);
  const run = ctx.runName ?? (project ? `${FORMAT}/${project}` : FORMAT);
  const report = new FileReport();
  const fail = (reason: string): ImportError => new ImportError(file, 0, reason);

  for (const { s, parent } of tree.order) {
    const content = sessionContent(db.messages(s.id), s.summary_message_id, fail);
    for (const [type, n] of content.unknownParts) report.unknownParts.set(type, (report.unknownParts.get(type) ?? 0) + n);
    report.strayResults += content.strayResults;
    const children = childrenOf.get(s.id) ?? [];
    if (children.length > 0) sites.set(s.id, content.calls);

    const own = ownCost(s, children, content.calls);
    let cost = own.cost;
    if (own.belowChildren) report.belowChildren++;
    const billed = content.turns.filter((t) => !t.errors?.some((e) => e.type === 'api_error'));
    if (cost === 0 && billed.some((t) => !isFree(t.model))) {
      cost = null;
      report.unknownZero++;
    }
    let link: CanonicalEpisode['parent'] = null;
    if (parent) {
      const callId = launchingCall(s.id);
      const site = kindOf(s) === 'subagent' ? sites.get(parent.id)?.get(callId) : undefined;
      link = site ? { episode_id: parent.id, t: site.t, tool_call_id: callId } : { episode_id: parent.id };
    }
    const episode = {
      schema: CANONICAL_SCHEMA,
      run,
      episode_id: s.id,
      task: { type: FORMAT, category: project, text: content.taskText },
      outcome: {},
      parent: link,
      kind: parent ? kindOf(s) : null,
      agent: { name: FORMAT, version: null },
      started_at: isoTime(s.created_at),
      cost_usd: cost,
      log_totals:
        s.cost === null
          ? null
          : { source: own.included ? 'crush sessions.cost (includes its sub-agent sessions)' : 'crush sessions.cost', cost_usd: s.cost },
      final_messages: content.finalMessages.length > 0 ? content.finalMessages : null,
      turns: content.turns,
    };
    const parsed = CanonicalEpisode.safeParse(episode);
    if (!parsed.success) throw fail(`session ${s.id}: ${describeIssue(parsed.error)}`);
    yield parsed.data;
  }
  const gauges = sessions.some((s) => (s.prompt_tokens ?? 0) > 0 || (s.completion_tokens ?? 0) > 0);
  report.emit(file, ctx, tree, gauges, db.orphanMessages());
}

export const crushImporter: Importer = {
  format: FORMAT,
  expects: 'a Crush session database: a SQLite file named crush.db with sessions and messages tables',
  // SQLite's files beside a database: read with it (the -wal) or not at all, never as logs of their own.
  sidecars: [/^crush\.db-(?:wal|shm|journal)$/],

  detect(head, fileName) {
    return fileName === 'crush.db' && head.startsWith(SQLITE_MAGIC);
  },

  async *read(file: string, ctx: ImportContext) {
    const db = CrushDatabase.open(file, ctx.warn);
    try {
      yield* readSessions(file, db, ctx);
    } finally {
      db.close();
    }
  },
};
