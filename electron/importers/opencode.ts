/**
 * OpenCode (sst/opencode) sessions: an `opencode export` JSON document, or a session file of OpenCode's storage
 * folder read with its message and part files (opencodeFiles.ts). One episode per session, one turn per model call
 * (step) (opencodeSteps.ts). A subagent session (`parentID`) is a child episode of the session whose task tool
 * launched it; in the storage folder the parent's files say which turn that was.
 *
 * Cost: each step's logged cost is the turn's `cost_usd`, except a logged 0 for a call that used tokens, which is
 * left unknown (priced from tokens) with a note: OpenCode writes 0 for subscriptions and unpriced models alike.
 * The log's own totals are the assistant messages' costs (OpenCode adds each step's cost to its message); their
 * tokens are not totals (each step overwrites them), so only the cost is kept in `log_totals`.
 */
import { basename } from 'node:path';
import { CANONICAL_SCHEMA, CanonicalEpisode, describeIssue } from '../../shared/canonical.ts';
import { failAt, parseJson, readTextFile } from './jsonDocument.ts';
import { sniffJsonHead } from './jsonHead.ts';
import { findSessionFile, isExport, readExport, readRecord, readStorage, storageRoot, type OpenCodeSession } from './opencodeFiles.ts';
import { foldSession, type ChildLink, type FoldedSession } from './opencodeSteps.ts';
import { ImportError, type ImportContext, type Importer } from './types.ts';

const FORMAT = 'opencode';

const iso = (ms: number | null | undefined): string | null => (ms == null ? null : new Date(ms).toISOString());

/** The export writes the session's info first, and a session's info opens with its id. */
const EXPORT_OPENING = /^\uFEFF?\s*\{\s*"info"\s*:\s*\{\s*"id"\s*:\s*"ses_[0-9A-Za-z]+"/;

/**
 * The last parent read and the children its task calls launched: a folder's subagent sessions sit beside each other
 * and share one parent, which is then read once.
 */
let lastParent: { file: string; children: Map<string, ChildLink> } | null = null;

function parentLink(file: string, parentID: string, childID: string, ctx: ImportContext): ChildLink | null {
  const root = storageRoot(file);
  const parentFile = root === null ? null : findSessionFile(root, parentID, file);
  if (parentFile === null) return null;
  if (lastParent?.file !== parentFile) {
    try {
      const { text, value } = readRecord(parentFile);
      const session = readStorage(parentFile, text, value, new Map());
      lastParent = { file: parentFile, children: foldSession(session.messages, new Map()).children };
    } catch (err) {
      if (!(err instanceof ImportError)) throw err;
      ctx.warn(`${file}: the parent session ${parentID} could not be read (${err.message}); linked to it without its turn`);
      return null;
    }
  }
  return lastParent.children.get(childID) ?? null;
}

function buildEpisode(file: string, session: OpenCodeSession, folded: FoldedSession, link: ChildLink | null, ctx: ImportContext): CanonicalEpisode | null {
  const { info } = session;
  if (folded.turns.length === 0) {
    ctx.warn(`${file}: OpenCode session ${info.id} has no model calls; nothing imported`);
    return null;
  }
  const parent = info.parentID ? { episode_id: info.parentID, t: link?.t ?? null, tool_call_id: link?.tool_call_id ?? null } : null;
  const episode = {
    schema: CANONICAL_SCHEMA,
    run: ctx.runName ?? FORMAT,
    episode_id: info.id,
    task: {
      type: FORMAT,
      category: info.directory ? basename(info.directory) || null : null,
      text: folded.taskText ?? info.title ?? null,
    },
    outcome: {},
    agent: { name: FORMAT, version: info.version ?? null },
    started_at: iso(info.time?.created),
    kind: parent ? 'subagent' : null,
    parent,
    final_messages: folded.finalMessages.length ? folded.finalMessages : null,
    log_totals: folded.messageCost === null ? null : { source: 'opencode message totals', cost_usd: folded.messageCost },
    turns: folded.turns,
  };
  const parsed = CanonicalEpisode.safeParse(episode);
  if (!parsed.success) {
    const at = parsed.error.issues[0]?.path;
    const where = at?.[0] === 'turns' && typeof at[1] === 'number' ? folded.turnWhere[at[1]]?.() : null;
    throw new ImportError(where?.file ?? file, where?.line ?? 1, describeIssue(parsed.error));
  }
  return parsed.data;
}

function warnAbout(file: string, folded: FoldedSession, ctx: ImportContext): void {
  if (folded.zeroCostSteps > 0) {
    ctx.warn(
      `${file}: ${folded.zeroCostSteps} model call(s) logged a cost of 0 although they used tokens (a subscription, a free model or a model OpenCode has no price for): left unknown and priced from tokens; the log's own total is kept`,
    );
  }
  if (folded.emptySteps > 0) ctx.warn(`${file}: ${folded.emptySteps} step(s) started but wrote nothing before the response ended: not counted as model calls`);
  for (const [type, n] of folded.unknownParts) ctx.warn(`${file}: ${n} part(s) of a type this importer does not know ("${type}") left out`);
}

export const openCodeImporter: Importer = {
  format: FORMAT,
  expects: 'an OpenCode session: `opencode export` JSON ({info: {id: "ses_…"}, messages}) or storage/session/<project>/ses_….json',
  // Read through the session file they belong to; todo/ and session_diff/ files are named after sessions too.
  sidecars: [/^msg_[0-9A-Za-z]+\.json$/, /^prt_[0-9A-Za-z]+\.json$/, /^ses_[0-9A-Za-z]+\.json$/],

  detect(head, fileName) {
    const sniff = sniffJsonHead(head);
    if (sniff.container !== 'object') return false;
    if (sniff.keys[0] === 'info') return EXPORT_OPENING.test(head) && (sniff.keys.includes('messages') || !sniff.complete);
    // A storage session file: the session's own info, named after it.
    const id = sniff.strings.get('id');
    return (
      id !== undefined && id.startsWith('ses_') && fileName === `${id}.json` &&
      sniff.keys.includes('projectID') && !sniff.keys.includes('role') && !sniff.keys.includes('messages')
    );
  },

  async *read(file, ctx) {
    const text = readTextFile(file, ctx.onBytes);
    const value = parseJson(text, failAt(file));
    const unknown = new Map<string, number>();
    const exported = isExport(value);
    const session = exported ? readExport(file, text, value, unknown) : readStorage(file, text, value, unknown, ctx.onBytes);
    const folded = foldSession(session.messages, unknown);
    const link = !exported && session.info.parentID ? parentLink(file, session.info.parentID, session.info.id, ctx) : null;
    const episode = buildEpisode(file, session, folded, link, ctx);
    warnAbout(file, folded, ctx);
    if (episode) yield episode;
  },
};
