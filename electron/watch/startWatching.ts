/**
 * Follows folders and files as agents write them (issue 36): every log under them is imported once, then each
 * change is read from the file's cursor and committed with it (commitFollowed.ts). The file system says what
 * changed (fs.watch, recursive); where it cannot (a network mount) the folders are polled. One watcher writes
 * through the database's one-writer rule: in `serve` and the window through their write queue, in the CLI by
 * SQLite's write lock, which a manual import waits for.
 */
import { readdirSync, readFileSync, rmSync, statSync, statfsSync, watch, writeFileSync, type FSWatcher } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { defaultErrorRules } from '../analysis/errorRules.ts';
import { fireAlerts, type FiredAlert } from '../alerts/fireAlerts.ts';
import { openDatabase, processAlive, type WriteWait } from '../db/database.ts';
import type { Db } from '../db/dbHandle.ts';
import { EpisodeWriter } from '../db/episodeWriter.ts';
import { detectImporter, notRegularFile, readHead } from '../importers/pipeline.ts';
import { ImportError } from '../importers/types.ts';
import type { WriteQueue } from '../services/writeQueue.ts';
import { commitFollowed, cursorRowOf, episodeKey, setCursorState, type CommittedFile } from './commitFollowed.ts';
import { FileFollower } from './fileFollower.ts';

export interface WatchEvent {
  kind: 'change' | 'notice' | 'alert';
  /** One line for a person: what changed, with the cost so far. */
  line: string;
  path: string | null;
  /** For a change: the file's episodes as committed. */
  committed?: CommittedFile;
  alert?: FiredAlert;
}

export interface WatchOptions {
  dbPath: string;
  paths: string[];
  /** serve's and the window's write queue: the watcher's writes wait their turn behind the window's imports. */
  queue?: WriteQueue;
  onEvent?: (e: WatchEvent) => void;
  /** Poll every this many ms instead of file-system events (0: events, with polling only on network mounts). */
  pollMs?: number;
  /** Called while another process holds the write lock. */
  onWait?: (w: WriteWait) => void;
}

export interface Watching {
  paths: string[];
  /** Resolves once every file there was at the start has been read (and imported where new or changed). */
  ready: Promise<void>;
  /** Resolves once every change made before the call is committed. */
  settled(): Promise<void>;
  stop(): Promise<void>;
  /** Counts since the start: files followed, calls added, commits. */
  stats(): { files: number; calls: number; commits: number };
}

/** Folders never searched, as in a folder import. */
const SKIP_DIRS = new Set(['node_modules', '.git', '.hg', '.svn']);
/** How long changes are gathered before they are read: an agent writes a response as a few lines at once. */
const GATHER_MS = 60;
/** Files followed are stat'ed this often besides the events, in case the kernel dropped some (a full inotify queue). */
const SAFETY_POLL_MS = 30_000;
/** A file not written for this long is let go after it is read (its cursor stays in the database): memory for live files. */
const IDLE_MS = 10 * 60_000;
/** File systems whose changes made elsewhere raise no events here: NFS, SMB/CIFS, FUSE (sshfs…). */
const NO_EVENTS_FS = new Set([0x6969, 0xff534d42, 0xfe534d42, 0x517b, 0x65735546]);

/** The agents' usual folders that exist here: what `watch` follows when given none. */
export function defaultWatchPaths(home: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const data = env.XDG_DATA_HOME || join(home, '.local', 'share');
  return [
    join(home, '.claude', 'projects'),
    join(home, '.codex', 'sessions'),
    join(home, '.gemini', 'tmp'),
    join(home, '.copilot', 'session-state'),
    join(home, '.openhands', 'sessions'),
    join(data, 'opencode', 'storage'),
  ].filter((p) => statSync(p, { throwIfNoEntry: false })?.isDirectory() === true);
}

function walk(dir: string, out: string[]): void {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return; // removed or unreadable while walked: its events say the rest
  }
  // A folder's own files first: a Claude Code session is read before its subagents.
  entries.sort((a, b) => Number(a.isDirectory()) - Number(b.isDirectory()) || a.name.localeCompare(b.name));
  for (const e of entries) {
    if (e.isDirectory()) {
      if (!SKIP_DIRS.has(e.name)) walk(join(dir, e.name), out);
    } else if (e.isFile()) out.push(join(dir, e.name));
  }
}

function fsWithoutEvents(path: string): boolean {
  try {
    return NO_EVENTS_FS.has(Number(statfsSync(path).type));
  } catch {
    return false;
  }
}

function money(x: number): string {
  return x >= 1 ? `$${x.toFixed(2)}` : `$${x.toFixed(4)}`;
}

/** "12:03:41  claude-code/app  8f2c…/agent-a1  claude-opus-4-1  +3 calls (40 in all)  $1.23 so far + 2 calls of unknown cost" */
export function changeLine(e: CommittedFile['episodes'][number], at = new Date()): string {
  const added = e.callsAdded === 0 ? 'rewritten' : `${e.callsAdded > 0 ? '+' : ''}${e.callsAdded} call${Math.abs(e.callsAdded) === 1 ? '' : 's'}`;
  const unknown = `${e.unknownCost} call${e.unknownCost === 1 ? '' : 's'} of unknown cost`;
  // Unknown is never shown as $0: with no call priced the cost so far is unknown.
  const cost = e.unknownCost >= e.turns ? `cost unknown (${unknown})` : `${money(e.cost)} so far${e.unknownCost > 0 ? ` + ${unknown}` : ''}`;
  return `${at.toTimeString().slice(0, 8)}  ${e.run}  ${e.episode}  ${e.model ?? '—'}  ${added} (${e.turns} in all)  ${cost}`;
}

/** Another watcher already follows the database: two would each commit the same changes against the same cursors. */
export class WatchLockError extends Error {}

/** The watch locks this process holds (a second watcher in the same process is refused too). */
const locksHeld = new Set<string>();

/**
 * One watcher per database, named in `DB-watch.json` (pid, since) for whoever comes second; a file left by a killed
 * watcher is taken over. Returns the release.
 */
function takeWatchLock(dbPath: string): () => void {
  const lock = `${resolve(dbPath)}-watch.json`;
  if (locksHeld.has(lock)) throw new WatchLockError(`${dbPath}: this process already follows this database`);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(lock, JSON.stringify({ pid: process.pid, since: new Date().toISOString() }), { flag: 'wx' });
      locksHeld.add(lock);
      return () => {
        locksHeld.delete(lock);
        rmSync(lock, { force: true });
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return () => {}; // a read-only folder: SQLite's lock still orders the writes
      let holder: { pid?: number; since?: string } = {};
      try {
        holder = JSON.parse(readFileSync(lock, 'utf8')) as typeof holder;
      } catch {
        // half-written by a watcher starting this instant, or damaged: taken as left behind
      }
      if (typeof holder.pid === 'number' && holder.pid !== process.pid && processAlive(holder.pid)) {
        throw new WatchLockError(`${dbPath}: another watcher (pid ${holder.pid}, since ${holder.since ?? '?'}) already follows this database; stop it first or use another database`);
      }
      rmSync(lock, { force: true });
    }
  }
  return () => {};
}

export async function startWatching(options: WatchOptions): Promise<Watching> {
  const roots = [...new Set(options.paths.map((p) => resolve(p)))];
  for (const r of roots) {
    if (statSync(r, { throwIfNoEntry: false }) === undefined) throw new ImportError(r, 0, 'no such file or folder');
  }
  const releaseLock = takeWatchLock(options.dbPath);
  let db: Db;
  try {
    db = openDatabase(options.dbPath);
  } catch (e) {
    releaseLock();
    throw e;
  }
  const writer = new EpisodeWriter(db, defaultErrorRules());
  const emit = (e: WatchEvent): void => options.onEvent?.(e);
  const followers = new Map<string, FileFollower>();
  /** Files followed before whose content is as committed: not held in memory until they change. */
  const dormant = new Set<string>();
  /** Files read and found not to be logs, by size and mtime: read again only when they change. */
  const notLogs = new Map<string, string>();
  /** Files refused, by what was refused (said once until the file changes). */
  const refused = new Map<string, string>();
  const dirty = new Set<string>();
  /** Files to read again though unchanged: a sidechain whose parent session changed. */
  const reask = new Set<string>();
  const watchers: FSWatcher[] = [];
  const timers: NodeJS.Timeout[] = [];
  let stopped = false;
  let gather: NodeJS.Timeout | null = null;
  let running: Promise<void> = Promise.resolve();
  let catchingUp = true;
  const counts = { files: 0, calls: 0, commits: 0 };

  const notice = (path: string | null, line: string): void => emit({ kind: 'notice', line, path });
  /** Whether a file's episodes have a parent whose launching turn is not known yet. */
  const unknownLink = db.prepare(`SELECT EXISTS (SELECT 1 FROM episodes e JOIN followed_files f ON f.source_id = e.source_id
    WHERE f.path = ? AND e.parent_ext_id IS NOT NULL AND e.parent_t IS NULL)`).pluck();
  const linkUnknown = (path: string): boolean => unknownLink.get(path) === 1;

  const statKey = (path: string): string => {
    const st = statSync(path, { throwIfNoEntry: false, bigint: true });
    return st ? `${st.size}:${st.mtimeNs}` : '';
  };

  /** A follower for a file seen for the first time by this process: resumed from its cursor row when that still fits. */
  const followerFor = async (path: string, reasked: boolean): Promise<FileFollower | null> => {
    const known = followers.get(path);
    if (known) return known;
    if (notRegularFile(path) !== null) return null;
    const row = cursorRowOf(db, path);
    const st = statSync(path, { throwIfNoEntry: false });
    if (!reasked && row?.state === 'following' && st !== undefined && st.size === row.size && Math.floor(st.mtimeMs) === row.mtime_ms) {
      // As committed: nothing is read (a tree of a gigabyte starts in the time of a stat per file) until it changes.
      dormant.add(path);
      return null;
    }
    dormant.delete(path);
    const sk = statKey(path);
    if (notLogs.get(path) === sk) return null;
    const importer = detectImporter(readHead(path), basename(path));
    if (importer === null || importer.readWith?.(path) != null) {
      notLogs.set(path, sk);
      return null;
    }
    const f = new FileFollower(path, importer);
    followers.set(path, f);
    if (row !== undefined && row.state !== 'deleted') await resume(f, row.source_id, row.cursor, row.size, row.mtime_ms);
    return f;
  };

  /**
   * A file followed before (by this or an earlier watcher): its lines up to the stored cursor are folded again and,
   * when they hash to the content committed then, the episodes they make are taken as what the rows hold, so only
   * what follows the cursor is written.
   */
  const resume = async (f: FileFollower, sourceId: number | null, cursor: number, size: number, mtimeMs: number): Promise<void> => {
    const committedHash = sourceId === null ? undefined : (db.prepare('SELECT content_hash FROM sources WHERE id = ?').pluck().get(sourceId) as string | undefined);
    if (committedHash === undefined) return;
    const st = statSync(f.path, { throwIfNoEntry: false });
    if (!f.incremental) {
      // Unchanged since committed: nothing to read until it changes.
      if (st && st.size === size && Math.floor(st.mtimeMs) === Math.floor(mtimeMs)) await f.readChanges();
      return;
    }
    try {
      await f.readChanges(cursor); // the lines committed, folded again; handle() reads what follows
      if (f.contentHash === committedHash) {
        const eps = await f.episodes();
        for (const ep of eps) f.digests.set(episodeKey(ep), writer.digestsOf(ep));
      }
    } catch {
      // read again in handle(), which reports what is wrong
    }
  };

  const handle = async (path: string): Promise<void> => {
    // A sidechain first seen by this process whose parent link is unknown is read again though unchanged: its parent
    // may have been completed while no watcher ran (read before it this pass, the parent could not re-ask it).
    const again = reask.delete(path) || (!followers.has(path) && linkUnknown(path));
    const f = await followerFor(path, again);
    if (f === null) return;
    const change = await (async () => {
      try {
        return await f.readChanges();
      } catch (e) {
        if (!(e instanceof ImportError)) throw e;
        return { kind: 'refused' as const, why: e.message };
      }
    })();
    if (change.kind === 'removed') {
      followers.delete(path);
      const row = cursorRowOf(db, path);
      if (row !== undefined && row.state !== 'deleted') {
        const n = row.source_id === null ? 0 : (db.prepare('SELECT COUNT(*) FROM episodes WHERE source_id = ?').pluck().get(row.source_id) as number);
        await write(() => setCursorState(db, path, 'deleted'));
        notice(path, `${path}: deleted; its ${n} episode${n === 1 ? '' : 's'} stay in the database`);
      }
      return;
    }
    if (change.kind === 'refused') return refuse(f, change.why);
    if (change.kind === 'unchanged' && !again && f.digests.size > 0) return;
    if (change.kind === 'restarted') notice(path, `${path}: ${change.why}: read again from its start`);
    let episodes;
    const warned = f.warned;
    warned.length = 0;
    try {
      episodes = await f.episodes();
    } catch (e) {
      if (!(e instanceof ImportError)) throw e;
      // A session with no model call yet, or a whole file written while read: the next change reads it again.
      if (/no model calls|changed while it was being imported/.test(e.reason)) return;
      return refuse(f, e.message);
    }
    refused.delete(path);
    const fresh = [...new Set(warned)].filter((w) => !f.said.has(w));
    for (const w of fresh) f.said.add(w);
    let committed: CommittedFile;
    let fired: FiredAlert[];
    try {
      const result = await write(async () => {
        const c = await commitFollowed(db, writer, f, episodes, fresh, options.onWait);
        // Alerts are for sessions changing now: the first pass over logs already there fires none (their next change may).
        return { c, fired: catchingUp ? [] : fireAlerts(db, c.episodes.map((e) => e.id)) };
      });
      if (result === undefined) return;
      committed = result.c;
      fired = result.fired;
    } catch (e) {
      if (!(e instanceof ImportError)) throw e;
      return refuse(f, e.message);
    }
    counts.commits++;
    if (committed.sameAs !== null) notice(path, `${path}: same content as ${committed.sameAs}, already imported: not imported again`);
    for (const w of committed.warnings) notice(path, `${path}: warning: ${w}`);
    if (committed.removed.length > 0) notice(path, `${path}: no longer holds ${committed.removed.length} episode(s) (${committed.removed.slice(0, 3).join(', ')}): removed with it`);
    for (const e of committed.episodes) {
      counts.calls += Math.max(0, e.callsAdded);
      if (e.callsAdded !== 0 || change.kind !== 'unchanged' || again) emit({ kind: 'change', line: changeLine(e), path, committed });
    }
    for (const a of fired) {
      emit({ kind: 'alert', line: `alert: ${a.run} ${a.episode}: ${a.message}`, path, alert: a });
    }
    // A sidechain reads its parent session: read again when the parent changed (a dormant one sits in a folder
    // named after the parent, as Claude Code's subagents do).
    // Only those whose link is still unknown: a parent is appended to, so a link once found stays as it is.
    const folder = `${path.replace(/\.[^./\\]+$/, '')}${sep}`;
    for (const other of [...followers.values()].filter((o) => o !== f && o.dependsOn() === path).map((o) => o.path)
      .concat([...dormant].filter((d) => d.startsWith(folder)))) {
      if (!linkUnknown(other)) continue;
      reask.add(other);
      dirty.add(other);
    }
    if (catchingUp && Date.now() - Number((f.identity?.mtimeNs ?? 0n) / 1_000_000n) > IDLE_MS) followers.delete(path);
  };

  const refuse = (f: FileFollower, why: string): void => {
    const said = refused.get(f.path);
    if (said === why) return;
    refused.set(f.path, why);
    // Its state is unknown past the bad line: read from the start when it changes again.
    followers.delete(f.path);
    notice(f.path, `refused  ${why}`);
  };

  /** One writer: serve's queue when there is one, else SQLite's lock (beginWrite waits for another process). */
  const write = async <T>(task: () => T | Promise<T>): Promise<T | undefined> =>
    options.queue ? options.queue.run('watch', async () => task()) : task();

  const drain = async (): Promise<void> => {
    while (dirty.size > 0 && !stopped) {
      const batch = [...dirty];
      dirty.clear();
      for (const path of batch) {
        if (stopped) return;
        try {
          await handle(path);
        } catch (e) {
          notice(path, `${path}: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
    }
  };

  const schedule = (): void => {
    if (gather !== null || stopped) return;
    gather = setTimeout(() => {
      gather = null;
      running = running.then(drain);
    }, GATHER_MS);
  };

  const touched = (path: string): void => {
    if (stopped) return;
    dirty.add(path);
    schedule();
  };

  /** The files under a root (the root itself when it is a file); none when it is gone. */
  const files = (root: string): string[] => {
    const out: string[] = [];
    const st = statSync(root, { throwIfNoEntry: false });
    if (st?.isDirectory()) walk(root, out);
    else if (st !== undefined) out.push(root);
    return out;
  };

  // Every file there is now, then each change.
  for (const root of roots) for (const p of files(root)) dirty.add(p);
  running = running.then(drain).then(() => {
    catchingUp = false;
  });
  const ready = running;

  const polled = new Set<string>();
  const seen = new Map<string, string>();
  const pollEvery = (options.pollMs ?? 0) > 0 ? (options.pollMs as number) : 2000;
  let pollTimer: NodeJS.Timeout | null = null;
  const pollRoot = (root: string): void => {
    for (const p of files(root)) seen.set(p, statKey(p));
    polled.add(root);
    if (pollTimer !== null || stopped) return;
    pollTimer = setInterval(() => {
      for (const r of polled) {
        for (const p of files(r)) {
          const k = statKey(p);
          if (seen.get(p) !== k) {
            // A file new since the poll began is read too (it was not there for the first pass).
            touched(p);
            seen.set(p, k);
          }
        }
      }
    }, pollEvery);
    pollTimer.unref?.(); // the host keeps itself alive (the CLI until Ctrl-C), not the poll
    timers.push(pollTimer);
  };
  for (const root of roots) {
    const st = statSync(root);
    if ((options.pollMs ?? 0) > 0 || fsWithoutEvents(root)) {
      pollRoot(root);
      continue;
    }
    const dir = st.isDirectory() ? root : dirname(root);
    /** Events stop for good after an error (a symbolic link loop in the tree) or once the folder is removed: polled from then on. */
    let w: FSWatcher | null = null;
    const fallBack = (why: string): void => {
      w?.close();
      if (stopped || polled.has(root)) return;
      notice(root, `${root}: ${why}: polling it instead`);
      pollRoot(root);
      // What changed between the last event and the first poll: every file is looked at once.
      for (const p of files(root)) touched(p);
    };
    const onEvent = (_event: string, name: string | Buffer | null): void => {
      if (st.isDirectory()) {
        const now = statSync(root, { throwIfNoEntry: false });
        if (now?.ino !== st.ino || now.dev !== st.dev) {
          // The followed folder itself removed (or replaced): its files' deletions are said, then it is waited for.
          for (const p of [...followers.keys(), ...dormant].filter((f) => f.startsWith(`${root}${sep}`))) touched(p);
          return fallBack(now === undefined ? 'removed; followed again when it is back' : 'replaced by another folder');
        }
      }
      if (name === null) {
        // The kernel could not say which file: look at every one again.
        for (const p of files(dir)) touched(p);
        return;
      }
      const p = join(dir, name.toString());
      if (st.isDirectory() || p === root) touched(p);
    };
    try {
      w = watch(dir, { recursive: st.isDirectory() }, onEvent);
    } catch (e) {
      // Node 24 walks the tree when the watch starts and throws there (a symbolic link loop); Node 20 says it later.
      fallBack((e as Error).message);
      continue;
    }
    w.on('error', (e) => fallBack(e.message));
    watchers.push(w);
  }
  // Events can be lost (a full inotify queue): the followed files are looked at now and then all the same.
  // A file not written for a while is let go (it becomes dormant: its cursor row matches it).
  timers.push(setInterval(() => {
    for (const f of followers.values()) {
      const id = f.identity;
      const st = statSync(f.path, { throwIfNoEntry: false, bigint: true });
      if (!st || id === null || st.size !== id.size || st.mtimeNs !== id.mtimeNs) touched(f.path);
      else if (!dirty.has(f.path) && Date.now() - Number(st.mtimeNs / 1_000_000n) > IDLE_MS) followers.delete(f.path);
    }
  }, SAFETY_POLL_MS));
  for (const t of timers) t.unref?.();

  return {
    paths: roots,
    ready,
    stats: () => ({ ...counts, files: followers.size + dormant.size }),
    async settled() {
      // The file system tells of a write a moment after it: changes made just before the call are waited for.
      await new Promise((r) => setTimeout(r, 3 * GATHER_MS));
      for (;;) {
        const now = running;
        await now;
        if (gather === null && dirty.size === 0 && now === running) return;
        await new Promise((r) => setTimeout(r, GATHER_MS));
      }
    },
    async stop() {
      stopped = true;
      for (const w of watchers) w.close();
      for (const t of timers) clearInterval(t);
      if (gather !== null) clearTimeout(gather);
      await running;
      db.close();
      releaseLock();
    },
  };
}
