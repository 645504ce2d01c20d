/**
 * Commits what a followed file holds now (issue 36), in one transaction with its cursor, so a reader never sees
 * half of a change and a watcher killed at any moment resumes from a cursor that matches the rows. The file keeps
 * one `sources` row, its content hash moving with the cursor: once the agent stops writing, `import` of the same
 * file finds it already imported.
 */
import { statSync } from 'node:fs';
import { beginWrite, commitWrite, rollbackWrite, type WriteWait } from '../db/database.ts';
import type { Db } from '../db/dbHandle.ts';
import type { EpisodeWriter } from '../db/episodeWriter.ts';
import { wellFormed } from '../db/episodeWriter.ts';
import type { CanonicalEpisode } from '../../shared/canonical.ts';
import type { FileFollower } from './fileFollower.ts';

/** One episode of a committed file, as the change line and the alerts need it. */
export interface CommittedEpisode {
  id: number;
  run: string;
  episode: string;
  /** The model of its last call; null when it has none. */
  model: string | null;
  turns: number;
  /** Calls the episode gained (negative when a rewritten file has fewer). */
  callsAdded: number;
  /** Known costs summed (USD) and the calls whose cost is unknown (never read as $0). */
  cost: number;
  unknownCost: number;
  /** Turns kept as they were (the rest written again). */
  kept: number;
}

export interface CommittedFile {
  episodes: CommittedEpisode[];
  /** Episodes the file no longer holds (a whole-file format rewritten with fewer), removed with it. */
  removed: string[];
  /** Set when the file's content is already in the database from another file: nothing written. */
  sameAs: string | null;
  /** Warnings the importer and writer gave on this read that were not said before for this file. */
  warnings: string[];
}

const key = (run: string, episode: string): string => `${run}\u0000${episode}`;

/** How an episode is keyed among a follower's digests: its run and id as stored. */
export const episodeKey = (ep: CanonicalEpisode): string => key(wellFormed(ep.run).value, wellFormed(ep.episode_id).value);

/** What committed is what the follower remembers: a rolled-back write is written whole again next time. */
function remember(f: FileFollower, digests: Map<string, string[]>): void {
  f.digests.clear();
  for (const [k, d] of digests) f.digests.set(k, d);
}

/** The cursor row of a followed file, as stored (followed_files). */
export interface CursorRow {
  path: string;
  source_id: number | null;
  format: string;
  dev: string;
  ino: string;
  size: number;
  cursor: number;
  head_hash: string;
  tail_hash: string;
  mtime_ms: number;
  changed_at: string;
  state: string;
}

export function cursorRowOf(db: Db, path: string): CursorRow | undefined {
  return db.prepare('SELECT * FROM followed_files WHERE path = ?').get(path) as CursorRow | undefined;
}

/** Marks a followed file's row (deleted, refused…) without touching its episodes. */
export function setCursorState(db: Db, path: string, state: string): void {
  db.prepare('UPDATE followed_files SET state = ?, changed_at = ? WHERE path = ?').run(state, new Date().toISOString(), path);
}

/**
 * Writes `episodes` (the file's, as they stand) for `f`, keeping each episode's unchanged turns, removing episodes the
 * file no longer holds, and moving the file's source row and cursor to what was read. Throws what the writer throws
 * (an ImportError for a clash with another file's episode), having rolled back.
 */
export async function commitFollowed(
  db: Db,
  writer: EpisodeWriter,
  f: FileFollower,
  episodes: CanonicalEpisode[],
  warnings: string[],
  onWait?: (w: WriteWait) => void,
): Promise<CommittedFile> {
  await beginWrite(db, { what: 'watch', onWait });
  const now = new Date().toISOString();
  const digests = new Map<string, string[]>();
  const written: { id: number; run: string; episode: string; callsAdded: number; kept: number }[] = [];
  let removed: string[] = [];
  try {
    const row = cursorRowOf(db, f.path);
    let sourceId = row?.source_id ?? (db.prepare('SELECT id FROM sources WHERE path = ? ORDER BY id DESC LIMIT 1').pluck().get(f.path) as number | undefined) ?? null;
    const holder = db.prepare('SELECT id, path FROM sources WHERE content_hash = ?').get(f.contentHash) as { id: number; path: string } | undefined;
    if (holder !== undefined && holder.id !== sourceId) {
      if (holder.path !== f.path && statSync(holder.path, { throwIfNoEntry: false }) === undefined) {
        // The file imported moved here (renamed within the tree): its source follows it, as a one-shot import of the
        // tree as it is now names it, and its appends are written to the same episodes.
        db.prepare('UPDATE sources SET path = ? WHERE id = ?').run(f.path, holder.id);
        db.prepare('DELETE FROM followed_files WHERE path = ?').run(holder.path);
        holder.path = f.path;
      }
      if (holder.path !== f.path) {
        // A copy of a file already imported: imported once, as `import` does.
        upsertCursor(db, f, row?.source_id ?? null, 'same content as another file', now);
        commitWrite(db);
        return { episodes: [], removed: [], sameAs: holder.path, warnings };
      }
      sourceId = holder.id;
    }
    if (holder !== undefined && f.digests.size === 0 && episodes.every((ep) => writer.isFrom(ep, holder.id))) {
      // Imported before as it is now (by `import`, or by a watcher whose memory is gone): its rows stand; followed from here.
      for (const ep of episodes) digests.set(episodeKey(ep), writer.digestsOf(ep));
      upsertCursor(db, f, holder.id, 'following', now);
      commitWrite(db);
      writer.commit();
      remember(f, digests);
      return { episodes: [], removed: [], sameAs: null, warnings };
    }
    if (sourceId === null) {
      sourceId = Number(db.prepare('INSERT INTO sources (content_hash, path, format, imported_at, episodes) VALUES (?, ?, ?, ?, 0)')
        .run(f.contentHash, f.path, f.importer.format, now).lastInsertRowid);
    }
    const before = db.prepare('SELECT e.n_turns FROM episodes e JOIN runs r ON r.id = e.run_id WHERE r.name = ? AND e.ext_id = ?').pluck();
    const kept = new Set<number>();
    for (const ep of episodes) {
      const run = wellFormed(ep.run).value;
      const episode = wellFormed(ep.episode_id).value;
      const had = (before.get(run, episode) as number | undefined) ?? 0;
      const result = writer.writeFollowed(ep, f.importer.format, f.path, sourceId, f.digests.get(key(run, episode)) ?? null);
      if (result.copyOf !== null) {
        warnings.push(`episode ${episode} is the same as already imported from ${result.copyOf}: not imported again`);
        continue;
      }
      digests.set(key(run, episode), result.digests);
      kept.add(result.episodeId);
      written.push({ id: result.episodeId, run, episode, callsAdded: ep.turns.length - had, kept: result.keptTurns });
    }
    const stale = (db.prepare('SELECT e.id, e.ext_id AS ext FROM episodes e WHERE e.source_id = ?').all(sourceId) as { id: number; ext: string }[])
      .filter((e) => !kept.has(e.id));
    if (stale.length > 0) {
      writer.flushText(); // deleting un-indexes their text: what was written this transaction must be indexed first
      const del = db.prepare('DELETE FROM episodes WHERE id = ?');
      for (const e of stale) del.run(e.id);
      removed = stale.map((e) => e.ext);
    }
    db.prepare('UPDATE sources SET content_hash = ?, episodes = ?, imported_at = ?, format = ? WHERE id = ?')
      .run(f.contentHash, written.length, now, f.importer.format, sourceId);
    upsertCursor(db, f, sourceId, 'following', now);
    writer.flushText();
    commitWrite(db);
    writer.commit();
  } catch (e) {
    rollbackWrite(db);
    writer.rollback();
    throw e;
  }
  remember(f, digests);
  const facts = db.prepare(`SELECT e.n_turns AS turns, e.total_cost AS cost, e.unpriced_turns AS unknownCost,
      (SELECT m.name FROM turns t JOIN models m ON m.id = t.model_id WHERE t.episode_id = e.id ORDER BY t.t DESC LIMIT 1) AS model
    FROM episodes e WHERE e.id = ?`);
  return {
    episodes: written.map((w) => ({ ...w, ...(facts.get(w.id) as Pick<CommittedEpisode, 'turns' | 'cost' | 'unknownCost' | 'model'>) })),
    removed,
    sameAs: null,
    warnings,
  };
}

function upsertCursor(db: Db, f: FileFollower, sourceId: number | null, state: string, now: string): void {
  const id = f.identity;
  db.prepare(`INSERT INTO followed_files (path, source_id, format, dev, ino, size, cursor, head_hash, tail_hash, mtime_ms, changed_at, state)
      VALUES (@path, @source_id, @format, @dev, @ino, @size, @cursor, @head_hash, @tail_hash, @mtime_ms, @changed_at, @state)
      ON CONFLICT (path) DO UPDATE SET source_id = excluded.source_id, format = excluded.format, dev = excluded.dev, ino = excluded.ino,
        size = excluded.size, cursor = excluded.cursor, head_hash = excluded.head_hash, tail_hash = excluded.tail_hash,
        mtime_ms = excluded.mtime_ms, changed_at = excluded.changed_at, state = excluded.state`)
    .run({
      path: f.path, source_id: sourceId, format: f.importer.format, dev: String(id?.dev ?? ''), ino: String(id?.ino ?? ''),
      size: Number(id?.size ?? 0), cursor: f.cursor, head_hash: f.headHash, tail_hash: f.tailHash,
      mtime_ms: id === null ? 0 : Number(id.mtimeNs / 1_000_000n), changed_at: now, state,
    });
}
