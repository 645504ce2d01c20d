/**
 * The live follower against a hostile tree (issue 36): what a user's folder can hold must neither stop the
 * watcher from seeing new logs nor flood its output.
 */
import { appendFileSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../db/database.ts';
import { importPaths } from '../importers/pipeline.ts';
import { claudeCodeImporter } from '../importers/claudeCode.ts';
import { CLI_BIN, REPO_ROOT } from '../testing/cliChild.ts';
import { FileFollower } from './fileFollower.ts';
import { startWatching } from './startWatching.ts';

const CODEX = 'fixtures/samples/codex/vct-codex.jsonl';
const SPOTTER = 'fixtures/samples/claude-code/spotter';
const SESSION = '8463c716-a2ea-4c14-9efa-87158ebd9f20';
const CLAUDE = `${SPOTTER}/${SESSION}.jsonl`;

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'rl-watch-attack-'));
  dirs.push(d);
  return d;
}

const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The rows `sql` answers on the database at `path`. */
function rowsOf(path: string, sql: string): unknown[] {
  const db = openDatabase(path);
  try {
    return db.prepare(sql).all();
  } finally {
    db.close();
  }
}

/** A one-shot import of the folder as it is now, into a fresh database: what the watcher must end equal to. */
async function importedOnce(root: string): Promise<string> {
  const path = join(tempDir(), 'once.db');
  const db = openDatabase(path);
  try {
    await importPaths(db, [root]);
  } finally {
    db.close();
  }
  return path;
}

describe('routelens watch against a hostile tree', () => {
  /** `routelens watch` run as a user runs it: until Ctrl-C, with what it says on stderr. */
  async function watchCli(args: string[], during: (saw: (re: RegExp) => Promise<void>) => Promise<void>): Promise<{ code: number | null; stderr: string }> {
    const child = spawn(process.execPath, [CLI_BIN, 'watch', ...args], { cwd: REPO_ROOT });
    let stderr = '';
    let code: number | null | undefined;
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (c) => r((code = c))));
    const saw = async (re: RegExp): Promise<void> => {
      for (let i = 0; i < 200 && !re.test(stderr); i++) {
        if (code !== undefined) throw new Error(`exited ${code} before saying ${re}\n${stderr}`);
        await pause(50);
      }
      if (!re.test(stderr)) throw new Error(`not seen: ${re}\n${stderr}`);
    };
    try {
      await during(saw);
    } finally {
      child.kill('SIGINT');
    }
    return { code: await exited, stderr };
  }

  it('keeps running and sees new sessions when polled, and after the events of a folder with a link loop fail', async () => {
    for (const args of [['--poll', '0.3'], []]) {
      const root = tempDir();
      const dbPath = join(tempDir(), 'live.db');
      copyFileSync(CODEX, join(root, 'rollout.jsonl'));
      symlinkSync('loop2', join(root, 'loop1'));
      symlinkSync('loop1', join(root, 'loop2'));
      const bytes = readFileSync(CLAUDE);
      const half = bytes.indexOf(10, Math.floor(bytes.length / 2)) + 1;
      const r = await watchCli([root, '--db', dbPath, ...args], async (saw) => {
        await saw(/^following .*: 1 log files/m);
        writeFileSync(join(root, 'notes.txt'), 'not a log');
        await pause(500);
        writeFileSync(join(root, 'session.jsonl'), bytes.subarray(0, half));
        await saw(/8463c716-a2ea-4c14-9efa-87158ebd9f20 .* \+\d+ calls/);
        await pause(500);
        appendFileSync(join(root, 'session.jsonl'), bytes.subarray(half));
        await saw(/\(143 in all\)/);
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/^stopped: /m);
      expect(r.stderr.match(/ELOOP/g)?.length ?? 0).toBeLessThanOrEqual(1);
    }
  }, 30_000);

  it('keeps running when the followed folder is removed, and follows it again once it is back', async () => {
    const root = join(tempDir(), 'projects');
    mkdirSync(join(root, 'app'), { recursive: true });
    copyFileSync(CODEX, join(root, 'app', 'rollout.jsonl'));
    const r = await watchCli([root, '--db', join(tempDir(), 'live.db')], async (saw) => {
      await saw(/^following .*: 1 log files/m);
      rmSync(root, { recursive: true });
      await saw(/projects: removed; followed again when it is back/);
      mkdirSync(join(root, 'app'), { recursive: true });
      copyFileSync(CLAUDE, join(root, 'app', 'session.jsonl'));
      await saw(/\+143 calls \(143 in all\)/);
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^stopped: /m);
  }, 30_000);

  it('links subagents to a parent session completed while no watcher ran (they are unchanged, their parent is not)', async () => {
    const root = tempDir();
    const dbPath = join(tempDir(), 'live.db');
    const project = join(root, 'project-x');
    for (const rel of ['subagents/agent-a7be2f0.jsonl', 'subagents/agent-acompact-f46190.jsonl']) {
      mkdirSync(join(project, SESSION, 'subagents'), { recursive: true });
      copyFileSync(join(SPOTTER, SESSION, rel), join(project, SESSION, rel));
    }
    const parent = readFileSync(join(SPOTTER, `${SESSION}.jsonl`));
    const cut = parent.indexOf(10, 20_000) + 1;
    writeFileSync(join(project, `${SESSION}.jsonl`), parent.subarray(0, cut));
    let w = await startWatching({ dbPath, paths: [root] });
    await w.ready;
    await w.stop();
    appendFileSync(join(project, `${SESSION}.jsonl`), parent.subarray(cut));
    w = await startWatching({ dbPath, paths: [root] });
    await w.ready;
    await w.settled();
    await w.stop();
    const links = (path: string): unknown => rowsOf(path, 'SELECT ext_id, n_turns, parent_ext_id, parent_t FROM episodes ORDER BY ext_id');
    const once = await importedOnce(root);
    expect(links(dbPath)).toEqual(links(once));
    expect((links(once) as { parent_t: number | null }[]).filter((e) => e.parent_t !== null)).toHaveLength(2);
  }, 30_000);

  it('stops cleanly on Ctrl-C during the first pass (exit 0, the lock let go)', async () => {
    const dbPath = join(tempDir(), 'live.db');
    const r = await watchCli(['fixtures/samples', '--db', dbPath], async (saw) => {
      await saw(/warning|refused|same content/); // a file of the first pass committed, the pass not over
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^stopped: /m);
    expect(r.stderr).not.toMatch(/^following /m);
    expect(existsSync(`${dbPath}-watch.json`)).toBe(false);
  }, 30_000);

  it('follows a session file renamed within the tree and written to after: its episode moves with it', async () => {
    const root = tempDir();
    const dbPath = join(tempDir(), 'live.db');
    mkdirSync(join(root, 'a'));
    mkdirSync(join(root, 'b'));
    const bytes = readFileSync(CLAUDE);
    const half = bytes.indexOf(10, Math.floor(bytes.length / 2)) + 1;
    writeFileSync(join(root, 'a', 'session.jsonl'), bytes.subarray(0, half));
    const events: string[] = [];
    const w = await startWatching({ dbPath, paths: [root], onEvent: (e) => events.push(e.line) });
    await w.ready;
    renameSync(join(root, 'a', 'session.jsonl'), join(root, 'b', 'session.jsonl'));
    await pause(200);
    await w.settled();
    appendFileSync(join(root, 'b', 'session.jsonl'), bytes.subarray(half));
    await pause(200);
    await w.settled();
    await w.stop();
    const rows = (path: string): unknown => rowsOf(path, 'SELECT s.path, e.n_turns, round(e.total_cost, 9) AS cost FROM episodes e JOIN sources s ON s.id = e.source_id');
    const once = await importedOnce(root);
    expect(events.filter((l) => l.startsWith('refused'))).toEqual([]);
    expect(rows(dbPath)).toEqual(rows(once));
  }, 30_000);

  /** Bytes this process has read from files so far (Linux). */
  const bytesRead = (): number => Number(/rchar: (\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))?.[1]);

  it.skipIf(!existsSync('/proc/self/io'))('reads a long line being written a piece at a time once, not again from its start on each change', async () => {
    const root = tempDir();
    const file = join(root, 'session.jsonl');
    const bytes = readFileSync(CLAUDE);
    writeFileSync(file, bytes.subarray(0, bytes.indexOf(10, 100_000) + 1));
    const f = new FileFollower(file, claudeCodeImporter);
    await f.readChanges();
    const before = bytesRead();
    const piece = Buffer.alloc(1 << 20, 0x61);
    // 40 MB written without a newline, read after each MB as the watcher does.
    for (let i = 0; i < 40; i++) {
      appendFileSync(file, piece);
      expect(await f.readChanges()).toEqual({ kind: 'unchanged' });
    }
    // Each MB read about once (a re-read from the line's start each time would be about 40 × 40 / 2 × 1.5 MB).
    expect(bytesRead() - before).toBeLessThan(200 << 20);
    appendFileSync(file, Buffer.alloc(30 << 20, 0x61));
    await expect(f.readChanges()).rejects.toThrow(/line longer than \d+ bytes/);
  }, 30_000);
});
