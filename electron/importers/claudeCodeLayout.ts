/**
 * Where a Claude Code transcript sits, and what its parent session says about it. Claude Code keeps
 * `~/.claude/projects/<project-slug>/<session-id>.jsonl`, with the session's subagents and compaction runs in
 * `<session-id>/subagents/agent-<id>.jsonl` (2.1) or beside it as `agent-<id>.jsonl` (2.0). The path names
 * the project and the session; a file outside that layout is a session alone.
 */
import { existsSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { parseSessionLine, TurnIndex } from './claudeCodeLines.ts';
import { SUBAGENT_TOOLS } from './claudeCodeTools.ts';
import { readLines } from './lineReader.ts';
import { isRegularFile } from './regularFile.ts';

const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const AGENT_FILE = /^agent-(.+)\.jsonl$/;

export interface SessionPlace {
  /** The project folder's name (the slug Claude Code derives from the working directory), in the layout. */
  project: string | null;
  /** The session the path names: `<session>.jsonl`, or the folder that holds `subagents/`. */
  sessionId: string | null;
  /** `agent-<id>.jsonl`: a sidechain of a session. */
  agentId: string | null;
  /** The folder the parent session file is looked for in, for a sidechain: `<folder>/<session>.jsonl`. */
  parentDir: string | null;
}

export function placeOf(file: string): SessionPlace {
  const name = basename(file);
  const dir = dirname(file);
  const agent = AGENT_FILE.exec(name)?.[1] ?? null;
  if (agent !== null && basename(dir) === 'subagents' && SESSION_ID.test(basename(dirname(dir)))) {
    const sessionDir = dirname(dir);
    return { project: basename(dirname(sessionDir)), sessionId: basename(sessionDir), agentId: agent, parentDir: dirname(sessionDir) };
  }
  // 2.0 kept sidechains beside the sessions: the project is known once the parent file is found there.
  if (agent !== null) return { project: null, sessionId: null, agentId: agent, parentDir: dir };
  const stem = name.replace(/\.jsonl$/, '');
  if (stem !== name && SESSION_ID.test(stem)) return { project: basename(dir), sessionId: stem, agentId: null, parentDir: null };
  return { project: null, sessionId: null, agentId: null, parentDir: null };
}

/** The parent session file of a sidechain, when it is there. */
export function parentFileOf(place: SessionPlace, sessionId: string): string | null {
  if (place.parentDir === null) return null;
  const file = join(place.parentDir, `${sessionId}.jsonl`);
  return existsSync(file) && isRegularFile(file) ? file : null;
}

export interface ParentLinks {
  /** Each agent a Task/Agent tool result names: the parent turn whose tool call launched it. */
  agents: Map<string, { t: number; toolCallId: string }>;
  /** Each compaction: the uuid of the last message before it → the last turn before it (null: none yet). */
  compactions: Map<string, number | null>;
  /**
   * Each model response of the parent by `message.id`, and by the `requestId` of its lines, → its turn. A
   * sidechain that forks the conversation (a side question, a compaction) starts with a copy of the parent's
   * messages under the same ids: those responses are the parent's turns, counted there.
   */
  responses: Map<string, number>;
  requests: Map<string, number>;
}

/** Older results carry the agent only in their text ("agentId: a7be2f0 (for resuming…)"). */
const AGENT_IN_TEXT = /\bagentId: ([\w-]+)/;

const MAX_LINE_BYTES = 64 * 1024 * 1024;

/**
 * Reads the parent session once, streamed, keeping only what links its sidechains: the turn of each
 * subagent launch and of each compaction. Turns are numbered by the same TurnIndex the importer uses.
 */
async function scanParent(file: string): Promise<ParentLinks> {
  const turns = new TurnIndex();
  const launches = new Map<string, number>();
  const links: ParentLinks = { agents: new Map(), compactions: new Map(), responses: new Map(), requests: new Map() };
  for await (const { lineNo, text } of readLines(file, { maxLineBytes: MAX_LINE_BYTES })) {
    // Cheap pre-filter: the scan needs only message lines, and progress lines are most of a long session.
    if (!text.includes('"assistant"') && !text.includes('"user"') && !text.includes('compact_boundary')) continue;
    const line = parseSessionLine(file, lineNo, text);
    if (line === null || line.type === 'other' || line.env.isSidechain === true) continue;
    if (line.type === 'assistant') {
      const t = turns.turnOf(line.message);
      if (t === null || line.message.id == null) continue;
      links.responses.set(line.message.id, t);
      if (line.env.requestId) links.requests.set(line.env.requestId, t);
      if (!Array.isArray(line.message.content)) continue;
      for (const b of line.message.content) {
        if (b.type === 'tool_use' && b.id && b.name && SUBAGENT_TOOLS.has(b.name)) launches.set(b.id, t);
      }
    } else if (line.type === 'user') {
      if (typeof line.message.content === 'string') continue;
      for (const b of line.message.content) {
        if (b.type !== 'tool_result' || !b.tool_use_id) continue;
        const t = launches.get(b.tool_use_id);
        if (t === undefined) continue;
        const text = typeof b.content === 'string' ? b.content : (b.content ?? []).map((p) => p.text ?? '').join('\n');
        const agent = line.agentId ?? AGENT_IN_TEXT.exec(text)?.[1] ?? null;
        if (agent !== null) links.agents.set(agent, { t, toolCallId: b.tool_use_id });
      }
    } else if (line.env.subtype === 'compact_boundary' && line.env.logicalParentUuid) {
      links.compactions.set(line.env.logicalParentUuid, turns.count > 0 ? turns.count - 1 : null);
    }
  }
  return links;
}

/** A session's subagents are read one after another: its links are kept while its file is unchanged. */
const cache = new Map<string, { stamp: string; links: Promise<ParentLinks> }>();
const CACHED_PARENTS = 4;

export function parentLinks(file: string): Promise<ParentLinks> {
  const st = statSync(file);
  const stamp = `${st.size}:${st.mtimeMs}`;
  const hit = cache.get(file);
  if (hit && hit.stamp === stamp) return hit.links;
  const links = scanParent(file);
  cache.delete(file);
  cache.set(file, { stamp, links });
  // A failed scan is not kept: the next sidechain tries again (and reports the same fault).
  links.catch(() => cache.delete(file));
  while (cache.size > CACHED_PARENTS) cache.delete(cache.keys().next().value as string);
  return links;
}
