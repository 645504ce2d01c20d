/**
 * `routelens watch [PATH...] --db FILE`: follows agents' logs as they are written (issue 36) — each change is
 * imported from the file's cursor and said in one line (session, model, calls added, cost so far); alerts fire
 * once per episode. Ctrl-C stops it between two commits, so the database is never left half-written.
 */
import { homedir } from 'node:os';
import { statSync } from 'node:fs';
import { visibleText as v } from '../../shared/displayText.ts';
import { describeWait, openDatabase } from '../db/database.ts';
import { ImportError } from '../importers/types.ts';
import { defaultWatchPaths, startWatching, WatchLockError, type WatchEvent } from '../watch/startWatching.ts';
import { alertRulesFromFlags } from './alerts.ts';
import { err, out, requireDb, UsageError, type Command } from './common.ts';

/** The folders the window remembers following (Follow folders…) that still exist. */
function rememberedFolders(dbPath: string): string[] {
  const db = openDatabase(dbPath);
  try {
    const rows = db.prepare('SELECT path FROM followed_roots ORDER BY path').pluck().all() as string[];
    return rows.filter((p) => statSync(p, { throwIfNoEntry: false })?.isDirectory() === true);
  } finally {
    db.close();
  }
}

export const command: Command = {
  usage: 'routelens watch [PATH...] --db FILE [--alert RULE]... [--poll SECONDS] [--json]\n' +
    '  Follows files and folders (default: the agents\' usual folders that exist — ~/.claude/projects, ~/.codex/sessions,\n' +
    '  ~/.gemini/tmp, ~/.copilot/session-state, ~/.openhands/sessions, OpenCode\'s storage — and the folders the window\n' +
    '  follows) and imports each change as it is written. One line per change; Ctrl-C stops.\n' +
    '  --alert RULE: fire once per episode when RULE holds (docs/alerts.md); saved with the database\'s rules.\n' +
    '  --poll SECONDS: look for changes every SECONDS instead of file-system events (network mounts are polled anyway).\n' +
    '  --json: one JSON object per event on stdout.',
  options: { db: { type: 'string' }, alert: { type: 'string', multiple: true }, poll: { type: 'string' }, json: { type: 'boolean' } },
  allowPositionals: true,
  async run(values, positionals) {
    const dbPath = requireDb(values, false);
    const pollSeconds = values.poll === undefined ? 0 : Number(values.poll);
    if (values.poll !== undefined && !(pollSeconds >= 0.1 && pollSeconds <= 3600)) throw new UsageError('--poll must be a number of seconds from 0.1 to 3600');
    const db = openDatabase(dbPath);
    try {
      alertRulesFromFlags(db, (values.alert as string[] | undefined) ?? []);
    } finally {
      db.close();
    }
    const paths = positionals.length > 0 ? positionals : [...new Set([...defaultWatchPaths(homedir()), ...rememberedFolders(dbPath)])];
    if (paths.length === 0) throw new UsageError('none of the agents\' usual folders exist here (~/.claude/projects, ~/.codex/sessions, …): give the files or folders to follow');
    const json = values.json === true;
    let live = false;
    let quietChanges = 0;
    const say = (e: WatchEvent): void => {
      if (json) return out(JSON.stringify({ kind: e.kind, line: e.line, path: e.path, alert: e.alert, episodes: e.committed?.episodes }));
      // The first pass over what is there already is summed up, not told file by file.
      if (!live && e.kind === 'change') {
        quietChanges++;
        return;
      }
      err(v(e.line));
    };
    // Ctrl-C is heard from the start: during the first pass over a large tree it stops between two commits too.
    let interrupted!: () => void;
    const ctrlC = new Promise<void>((done) => (interrupted = done));
    // Until Ctrl-C, whatever the watcher holds: its file-system watchers end when a followed folder is removed.
    const alive = setInterval(() => {}, 1 << 30);
    const stop = (): void => {
      clearInterval(alive);
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      interrupted();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    let watching;
    try {
      watching = await startWatching({
        dbPath, paths, onEvent: say, pollMs: pollSeconds * 1000,
        onWait: (w) => err(describeWait(w)),
      });
    } catch (e) {
      stop();
      if (e instanceof ImportError) throw new UsageError(`${e.file}: ${e.reason}`);
      if (e instanceof WatchLockError) throw new UsageError(e.message);
      throw e;
    }
    const first = await Promise.race([watching.ready.then(() => true), ctrlC.then(() => false)]);
    if (first) {
      live = true;
      const s = watching.stats();
      err(`following ${watching.paths.map((p) => v(p)).join(', ')}: ${s.files} log files, ${quietChanges} episode(s) imported or updated on start. Ctrl-C stops.`);
      await ctrlC;
    }
    await watching.stop();
    const end = watching.stats();
    err(`stopped: ${end.calls} call(s) added in ${end.commits} commit(s); every change is committed and the next watch resumes from the cursors`);
    return 0;
  },
};
