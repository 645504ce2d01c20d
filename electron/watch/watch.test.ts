/**
 * The live follower against a one-shot import (issue 36 item 2): real session files are written piece by piece —
 * cut mid-line, parent and subagents interleaved, truncated, rotated, the watcher stopped and started again — and
 * after the last write the database must hold what `import` of the final files gives: the same episodes, turns,
 * tokens, costs, text, messages and parent links.
 */
import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../db/database.ts';
import type { Db } from '../db/dbHandle.ts';
import { importPaths } from '../importers/pipeline.ts';
import { startWatching, WatchLockError, type WatchEvent, type Watching } from './startWatching.ts';

const SPOTTER = 'fixtures/samples/claude-code/spotter';
const SESSION = '8463c716-a2ea-4c14-9efa-87158ebd9f20';
const CODEX = 'fixtures/samples/codex/vct-codex.jsonl';
const COPILOT = 'fixtures/samples/copilot-cli/vct-copilot.jsonl';
const GEMINI = 'fixtures/samples/gemini-cli/vct-gemini.jsonl';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'rl-watch-'));
  dirs.push(d);
  return d;
}

/** Everything a reader sees of the episodes, without row ids, in a stable order. */
function dump(db: Db): unknown {
  const q = (sql: string): unknown[] => db.prepare(sql).all();
  return {
    episodes: q(`SELECT r.name AS run, e.ext_id, e.task_type, e.task_category, e.n_turns, round(e.total_cost, 9) AS cost, e.unpriced_turns,
      e.n_errors, e.n_switches, e.parent_ext_id, e.parent_t, e.kind, e.agent, e.started_at, s.path AS source, a.last_at,
      x.task_text, x.system_prompt, x.detail, x.outcome
      FROM episodes e JOIN runs r ON r.id = e.run_id LEFT JOIN sources s ON s.id = e.source_id
      LEFT JOIN episode_activity a ON a.episode_id = e.id LEFT JOIN episode_text x ON x.episode_id = e.id ORDER BY r.name, e.ext_id`),
    turns: q(`SELECT r.name AS run, e.ext_id, t.t, m.name AS model, t.switched, t.action_type, t.tool, t.tokens_in, t.tokens_out,
      t.tokens_cached, t.tokens_cache_write, t.tokens_cache_write_1h, round(t.cost, 12) AS cost, t.cost_source, t.error_mask, t.max_severity,
      x.action, x.observation, x.detail
      FROM turns t JOIN episodes e ON e.id = t.episode_id JOIN runs r ON r.id = e.run_id JOIN models m ON m.id = t.model_id
      LEFT JOIN turn_text x ON x.turn_id = t.id ORDER BY r.name, e.ext_id, t.t`),
    errors: q(`SELECT e.ext_id, t.t, et.name, te.severity, te.source FROM turn_errors te JOIN turns t ON t.id = te.turn_id
      JOIN episodes e ON e.id = t.episode_id JOIN error_types et ON et.id = te.error_type_id ORDER BY e.ext_id, t.t, et.name`),
    messages: q(`SELECT e.ext_id, m.t, m.seq, m.role, m.text, m.timestamp FROM messages m JOIN episodes e ON e.id = m.episode_id ORDER BY e.ext_id, m.seq`),
    perModel: q(`SELECT e.ext_id, m.name, em.n_turns, em.priced_turns, round(em.cost, 9) AS cost, em.tokens_in, em.tokens_out, em.tokens_cached,
      em.tokens_cache_write, em.unknown_turns, em.first_t FROM episode_models em JOIN episodes e ON e.id = em.episode_id
      JOIN models m ON m.id = em.model_id ORDER BY e.ext_id, m.name`),
    // What search finds: every turn's text indexed once.
    searchable: q(`SELECT count(*) AS n FROM turn_fts WHERE turn_fts MATCH 'the'`),
    sources: q('SELECT path, content_hash, format, episodes FROM sources ORDER BY path'),
  };
}

/** A one-shot import of the final files into a fresh database, dumped. */
async function oneShot(root: string): Promise<unknown> {
  const db = openDatabase(join(tempDir(), 'once.db'));
  try {
    await importPaths(db, [root]);
    return dump(db);
  } finally {
    db.close();
  }
}

/** The files of a Claude Code session tree and a Codex, a Copilot CLI and a Gemini CLI session, with the bytes each will end with. */
function sessionFiles(): { rel: string; bytes: Buffer }[] {
  const root = join(SPOTTER);
  return [
    `${SESSION}.jsonl`,
    `${SESSION}/subagents/agent-a7be2f0.jsonl`,
    `${SESSION}/subagents/agent-acompact-f46190.jsonl`,
  ].map((rel) => ({ rel: join('project-x', rel), bytes: readFileSync(join(root, rel)) }))
    .concat([
      { rel: join('codex', 'rollout.jsonl'), bytes: readFileSync(CODEX) },
      { rel: join('copilot', 'events.jsonl'), bytes: readFileSync(COPILOT) },
      { rel: join('gemini', 'session.jsonl'), bytes: readFileSync(GEMINI) },
    ]);
}

/** A small deterministic generator, so a failing order can be replayed. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

async function watchOf(dbPath: string, root: string, events: WatchEvent[] = []): Promise<Watching> {
  const w = await startWatching({ dbPath, paths: [root], onEvent: (e) => events.push(e) });
  await w.ready;
  return w;
}

describe('routelens watch', () => {
  it('ends equal to a one-shot import after a Claude Code session tree and Codex, Copilot and Gemini sessions are written in random pieces, cut mid-line, files interleaved', async () => {
    const root = tempDir();
    const dbPath = join(tempDir(), 'live.db');
    const files = sessionFiles();
    const written = files.map(() => 0);
    for (const f of files) mkdirSync(dirname(join(root, f.rel)), { recursive: true });
    const events: WatchEvent[] = [];
    const w = await watchOf(dbPath, root, events);
    const next = rng(7);
    let steps = 0;
    let sawPartial = false;
    while (written.some((n, i) => n < (files[i]?.bytes.length ?? 0))) {
      const open = files.map((_, i) => i).filter((i) => (written[i] ?? 0) < (files[i]?.bytes.length ?? 0));
      const i = open[Math.floor(next() * open.length)] as number;
      const f = files[i] as { rel: string; bytes: Buffer };
      const from = written[i] as number;
      // Pieces of up to 60 KB, ending anywhere (mid-line, mid-character of UTF-8).
      const to = Math.min(f.bytes.length, from + 1 + Math.floor(next() * 60_000));
      appendFileSync(join(root, f.rel), f.bytes.subarray(from, to));
      written[i] = to;
      steps++;
      if (steps % 4 === 0) {
        await w.settled();
        // A reader between writes sees only whole lines: no episode holds a turn past the last complete line.
        sawPartial ||= f.bytes[to - 1] !== 10;
      }
    }
    await w.settled();
    const live = openDatabase(dbPath);
    const got = dump(live);
    live.close();
    await w.stop();
    expect(steps).toBeGreaterThan(8);
    expect(sawPartial).toBe(true);
    expect(events.some((e) => e.kind === 'change' && /\+\d+ calls?/.test(e.line))).toBe(true);
    expect(got).toEqual(await oneShot(root));
  }, 60_000);

  it('resumes from its cursors after being stopped mid-session, and notices truncation, rotation and deletion', async () => {
    const root = tempDir();
    const dbPath = join(tempDir(), 'live.db');
    const file = join(root, 'rollout.jsonl');
    const bytes = readFileSync(CODEX);
    const half = bytes.indexOf(10, Math.floor(bytes.length / 2)) + 1;
    const cc = join(root, 'cc', `${SESSION}.jsonl`);
    const ccBytes = readFileSync(join(SPOTTER, `${SESSION}.jsonl`));
    const ccHalf = ccBytes.indexOf(10, Math.floor(ccBytes.length / 2)) + 1;
    mkdirSync(dirname(cc), { recursive: true });
    writeFileSync(file, bytes.subarray(0, half));
    writeFileSync(cc, ccBytes.subarray(0, ccHalf));
    const events: WatchEvent[] = [];
    let w = await watchOf(dbPath, root, events);
    // One watcher per database: a second would commit the same changes against the same cursors.
    await expect(startWatching({ dbPath, paths: [root] })).rejects.toThrow(WatchLockError);
    await w.stop();
    // Written while no watcher runs: the next one resumes from the cursor.
    appendFileSync(file, bytes.subarray(half));
    appendFileSync(cc, ccBytes.subarray(ccHalf));
    w = await watchOf(dbPath, root, events);
    await w.settled();
    const check = openDatabase(dbPath);
    expect(dump(check)).toEqual(await oneShot(root));
    check.close();

    // Cut shorter: said, read again from its start, its episode as the shorter file makes it.
    writeFileSync(file, bytes.subarray(0, half));
    await new Promise((r) => setTimeout(r, 200));
    await w.settled();
    expect(events.some((e) => e.kind === 'notice' && e.line.includes('truncated'))).toBe(true);
    // Rotated: another file in its place.
    renameSync(file, `${file}.old`);
    copyFileSync(CODEX, file);
    await new Promise((r) => setTimeout(r, 200));
    await w.settled();
    rmSync(`${file}.old`);
    await new Promise((r) => setTimeout(r, 200));
    await w.settled();
    const after = openDatabase(dbPath);
    const got = dump(after) as { episodes: { source: string }[] };
    after.close();
    expect(got).toEqual(await oneShot(root));
    // Deleted: said, its episodes kept.
    rmSync(cc);
    await new Promise((r) => setTimeout(r, 200));
    await w.settled();
    await w.stop();
    expect(events.some((e) => e.kind === 'notice' && e.line.includes('deleted; its 1 episode stay'))).toBe(true);
    const kept = openDatabase(dbPath);
    expect(kept.prepare('SELECT count(*) FROM episodes').pluck().get()).toBe(2);
    kept.close();
    expect(relative(root, file)).toBe('rollout.jsonl');
  }, 60_000);
});
