import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../db/database.ts';
import { useTempDir } from '../testing/tmp.ts';
import { crushImporter } from './crush.ts';
import { importPaths, readHead } from './pipeline.ts';
import { readEpisodes, rejectionOf } from './testing.ts';

const fixtures = fileURLToPath(new URL('../../fixtures/', import.meta.url));
const sample = join(fixtures, 'samples/crush/scn-ts-core/.crush/crush.db');
const tempDir = useTempDir();

const sha256 = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

/** The real sample's schema (tables, indexes, triggers), so a built database has exactly Crush's shape. */
function crushSchema(): string[] {
  const bytes = readFileSync(sample);
  // A deserialized database has no WAL: the copy says rollback journal (bytes 18-19), as SQLite's own format allows.
  bytes[18] = 1;
  bytes[19] = 1;
  const real = new Database(bytes);
  const sql = real.prepare("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY rowid").pluck().all() as string[];
  real.close();
  return sql;
}

interface Msg {
  id: string;
  role: 'user' | 'assistant' | 'tool';
  parts: unknown[];
  model?: string;
  at?: number;
}

/** Part shapes as Crush's internal/message marshalParts writes them (`{type, data}`), as in the real sample. */
const text = (t: string): unknown => ({ type: 'text', data: { text: t } });
const finish = (reason: string): unknown => ({ type: 'finish', data: { reason, time: 1755039573 } });
const call = (id: string, name: string, input: object): unknown => ({
  type: 'tool_call',
  data: { id, name, input: JSON.stringify(input), type: 'function', finished: true },
});
const result = (id: string, content: string, isError = false): unknown => ({
  type: 'tool_result',
  data: { tool_call_id: id, name: '', content, metadata: '', is_error: isError },
});

/**
 * A crush.db with the real file's schema, in the folder `.crush` of `project`. Sessions:
 * [id, parent, cost, prompt_tokens]; messages are written in order (rowid order is Crush's order).
 */
function buildDb(sessions: [string, string | null, number, number?][], messages: Record<string, Msg[]>, dir = tempDir()): string {
  const folder = join(dir, 'proj', '.crush');
  mkdirSync(folder, { recursive: true });
  const file = join(folder, 'crush.db');
  const db = new Database(file);
  for (const stmt of crushSchema()) db.exec(stmt);
  const addSession = db.prepare(
    "INSERT INTO sessions (id, parent_session_id, title, prompt_tokens, completion_tokens, cost, updated_at, created_at) VALUES (?, ?, 'New Agent Session', ?, 0, ?, 1755039567, 1755039567)",
  );
  const addMessage = db.prepare(
    'INSERT INTO messages (id, session_id, role, parts, model, provider, created_at, updated_at, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  for (const [id, parent, cost, prompt] of sessions) addSession.run(id, parent, prompt ?? 0, cost);
  for (const [session, list] of Object.entries(messages)) {
    for (const m of list) {
      const at = m.at ?? 1755039600;
      addMessage.run(m.id, session, m.role, JSON.stringify(m.parts), m.model ?? '', m.role === 'user' ? null : 'openrouter', at, at, m.role === 'assistant' ? at : null);
    }
  }
  db.close();
  return file;
}

const MODEL = 'anthropic/claude-sonnet-4';

describe('Crush importer: the real database', () => {
  it('reproduces the PROVENANCE hand counts', async () => {
    const { episodes, warnings } = await readEpisodes(crushImporter, sample);
    expect(episodes.map((e) => e.episode_id)).toEqual(['cba67839-ebb1-4142-a065-19fd5d64283d', 'a8711830-b621-4afa-a1bd-ca085e6e1345']);
    expect(new Set(episodes.map((e) => e.run))).toEqual(new Set(['crush/scn-ts-core']));
    const byModel: Record<string, number> = {};
    for (const t of episodes.flatMap((e) => e.turns)) byModel[t.model] = (byModel[t.model] ?? 0) + 1;
    expect(byModel).toEqual({ 'deepseek/deepseek-chat-v3-0324:free': 21, 'moonshotai/kimi-k2:free': 4, [MODEL]: 1 });
    const calls = episodes.flatMap((e) => e.turns.flatMap((t) => t.tool_calls ?? []));
    expect(calls).toHaveLength(19);
    expect(calls.every((c) => c.result !== null)).toBe(true);
    expect(calls.filter((c) => c.is_error)).toHaveLength(3);
    // Session totals only: no turn gets tokens or a cost, the session's logged $0 is the episode's.
    expect(episodes.flatMap((e) => e.turns).every((t) => t.tokens == null && t.cost_usd == null)).toBe(true);
    expect(episodes.map((e) => e.cost_usd)).toEqual([0, 0]);
    expect(episodes.map((e) => e.log_totals)).toEqual([
      { source: 'crush sessions.cost', cost_usd: 0 },
      { source: 'crush sessions.cost', cost_usd: 0 },
    ]);
    // prompt_tokens 25,700 / completion 172 is the last call's usage, not a total: said, not imported.
    expect(warnings).toEqual([expect.stringMatching(/latest call's prompt\/completion tokens .*not totals/)]);
  });

  it('keeps every message: the first prompt as the task, later prompts as inputs, failures as errors', async () => {
    const [quick, main] = (await readEpisodes(crushImporter, sample)).episodes;
    if (!quick || !main) throw new Error('two sessions expected');
    // The 402 from OpenRouter: a call that failed, kept as a turn with its error.
    expect(quick.turns).toHaveLength(1);
    expect(quick.turns[0]?.errors).toEqual([{ type: 'api_error', severity: 'high' }]);
    expect(quick.turns[0]?.observation).toMatch(/^error: API Error: POST .*402 Payment Required/);
    expect(main.task.text).toBe('hi');
    const inputs = main.turns.flatMap((t) => t.inputs ?? []);
    expect(inputs.map((i) => i.role)).toEqual(['user', 'user', 'user', 'user', 'user']);
    expect(main.turns[3]?.inputs).toEqual([{ role: 'user', text: 'continue the effort', timestamp: '2025-08-12T23:00:26.000Z' }]);
    expect(main.turns[1]?.inputs?.[0]?.text).toMatch(/^test\/ts\/e2e\/03-dependencies\.test\.ts:/);
    const first = main.turns[1];
    expect(first?.action).toEqual({ type: 'tool', tool: 'read', text: 'view /home/realme-book/Project/code/scn-ts-core/src/queries/typescript.ts' });
    expect(first?.message).toMatch(/^This is a tree-sitter query error/);
    expect(first?.observation).toMatch(/^<file>\n {5}1\|const tsBaseQueries/);
    expect(main.turns.at(-1)?.notes).toEqual([expect.stringMatching(/^no finish recorded/)]);
    expect(main.turns[0]?.timestamp).toBe('2025-08-12T22:59:27.000Z');
    expect(main.started_at).toBe('2025-08-12T22:59:27.000Z');
    expect(main.final_messages ?? null).toBeNull();
  });

  it('imports through the pipeline without touching the file: same bytes, no -wal or -shm beside it', async () => {
    // A copy, so that a failure cannot leave files beside the fixture. The sample is in WAL mode: SQLite's own
    // read-only open of it creates crush.db-shm and crush.db-wal in its folder.
    const dir = join(tempDir(), 'scn-ts-core', '.crush');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'crush.db');
    copyFileSync(sample, file);
    const before = sha256(file);
    const db = openDatabase(join(tempDir(), 'r.db'));
    const report = await importPaths(db, [file]);
    expect(report.files).toMatchObject([{ status: 'imported', format: 'crush', episodes: 2, turns: 26 }]);
    expect(sha256(file)).toBe(before);
    expect(readdirSync(dir)).toEqual(['crush.db']);
    // What the database shows as each session's cost: the logged $0, known (no unpriced turns), not unknown.
    const rows = db.prepare('SELECT ext_id, total_cost, logged_cost, unpriced_turns, n_turns FROM episodes ORDER BY ext_id').all();
    expect(rows).toEqual([
      { ext_id: 'a8711830-b621-4afa-a1bd-ca085e6e1345', total_cost: 0, logged_cost: 0, unpriced_turns: 0, n_turns: 25 },
      { ext_id: 'cba67839-ebb1-4142-a065-19fd5d64283d', total_cost: 0, logged_cost: 0, unpriced_turns: 0, n_turns: 1 },
    ]);
    db.close();
  });

  it('reads a folder with SQLite files beside crush.db as sidecars, not errors', async () => {
    const dir = join(tempDir(), 'proj', '.crush');
    mkdirSync(dir, { recursive: true });
    copyFileSync(sample, join(dir, 'crush.db'));
    // An empty -wal, a -shm index and a -journal, as a crashed or running Crush leaves them.
    writeFileSync(join(dir, 'crush.db-wal'), '');
    writeFileSync(join(dir, 'crush.db-shm'), Buffer.alloc(32768));
    writeFileSync(join(dir, 'crush.db-journal'), Buffer.alloc(512, 1));
    const db = openDatabase(join(tempDir(), 'r.db'));
    const report = await importPaths(db, [join(dir, '..')]);
    expect(report.files).toMatchObject([{ status: 'imported', format: 'crush', episodes: 2 }]);
    expect(report.ignored.map((i) => [i.path.split('/').pop(), i.reason])).toEqual([
      ['crush.db-journal', expect.stringMatching(/^sidecar of crush logs/)],
      ['crush.db-shm', expect.stringMatching(/^sidecar of crush logs/)],
      ['crush.db-wal', 'empty file'],
    ]);
    expect(report.warnings).toContainEqual(expect.stringMatching(/crush\.db-journal beside it: a write was interrupted/));
    db.close();
  });

  it('detects crush.db by its SQLite header and name only', () => {
    const head = readHead(sample);
    expect(crushImporter.detect(head, 'crush.db')).toBe(true);
    expect(crushImporter.detect(head, 'other.db')).toBe(false);
    expect(crushImporter.detect('{"type":"session.start"}', 'crush.db')).toBe(false);
  });
});

describe('Crush importer: session trees and costs', () => {
  // Crush's agent tool creates the child session with the tool call's id (August 2025) or `<message>$$<call>`
  // (since October 2025), and adds the child's cost to the parent's only when the sub-agent finished
  // (internal/llm/agent/agent-tool.go, internal/agent/coordinator.go's runSubAgent).
  const messages: Record<string, Msg[]> = {
    root: [
      { id: 'u1', role: 'user', parts: [text('fix the bug'), finish('stop')] },
      { id: 'a1', role: 'assistant', model: MODEL, parts: [text('Delegating.'), call('call_A', 'agent', { prompt: 'find it' }), call('call_B', 'agent', { prompt: 'other' }), finish('tool_use')] },
      { id: 't1', role: 'tool', parts: [result('call_A', 'found in a.ts'), result('call_B', 'error generating agent: canceled', true), finish('stop')] },
      { id: 'a2', role: 'assistant', model: MODEL, parts: [call('call_C', 'agent', { prompt: 'third' }), finish('tool_use')] },
      { id: 't2', role: 'tool', parts: [result('call_C', 'done'), finish('stop')] },
      { id: 'a3', role: 'assistant', model: MODEL, parts: [text('Fixed.'), finish('end_turn')] },
      { id: 'u2', role: 'user', parts: [text('thanks'), finish('stop')] },
    ],
    call_A: [
      { id: 'ua', role: 'user', parts: [text('find it'), finish('stop')] },
      { id: 'aa', role: 'assistant', model: 'openai/gpt-4.1-mini', parts: [text('a.ts'), finish('end_turn')] },
    ],
    call_B: [
      { id: 'ub', role: 'user', parts: [text('other'), finish('stop')] },
      { id: 'ab', role: 'assistant', model: 'openai/gpt-4.1-mini', parts: [finish('canceled')] },
    ],
    'a2$$call_C': [
      { id: 'uc', role: 'user', parts: [text('third'), finish('stop')] },
      { id: 'ac', role: 'assistant', model: 'openai/gpt-4.1-mini', parts: [text('ok'), finish('end_turn')] },
    ],
  };

  it('links each sub-agent session to the turn that launched it and counts each dollar once', async () => {
    // root's own calls cost 0.10; call_A (0.20) and call_C (0.04) finished and were added; call_B (0.05) was not.
    const file = buildDb(
      [['root', null, 0.34], ['call_A', 'root', 0.2], ['call_B', 'root', 0.05], ['a2$$call_C', 'root', 0.04]],
      messages,
    );
    const { episodes } = await readEpisodes(crushImporter, file);
    const byId = new Map(episodes.map((e) => [e.episode_id, e]));
    expect(episodes.map((e) => e.episode_id)).toEqual(['root', 'call_A', 'call_B', 'a2$$call_C']);
    expect(byId.get('root')?.cost_usd).toBe(0.1);
    expect(byId.get('root')?.log_totals).toEqual({ source: 'crush sessions.cost (includes its sub-agent sessions)', cost_usd: 0.34 });
    expect(episodes.map((e) => e.cost_usd)).toEqual([0.1, 0.2, 0.05, 0.04]);
    expect(byId.get('call_A')).toMatchObject({ kind: 'subagent', parent: { episode_id: 'root', t: 0, tool_call_id: 'call_A' } });
    expect(byId.get('a2$$call_C')).toMatchObject({ kind: 'subagent', parent: { episode_id: 'root', t: 1, tool_call_id: 'call_C' } });
    expect(byId.get('call_A')?.task.text).toBe('find it');
    expect(byId.get('root')?.kind ?? null).toBeNull();
    expect(byId.get('root')?.final_messages).toEqual([{ role: 'user', text: 'thanks', timestamp: '2025-08-12T23:00:00.000Z' }]);
    expect(byId.get('root')?.turns[0]?.tool_calls?.map((c) => [c.id, c.is_error])).toEqual([['call_A', false], ['call_B', true]]);
    expect(byId.get('call_B')?.turns[0]?.notes).toEqual(['finish reason: canceled']);

    // In the database: the run's total is the sum of the sessions' own costs (0.39), not 0.34 + 0.29.
    const db = openDatabase(join(tempDir(), 'r.db'));
    await importPaths(db, [file]);
    expect(db.prepare('SELECT ROUND(SUM(total_cost), 10) FROM episodes').pluck().get()).toBe(0.39);
    expect(db.prepare("SELECT parent_ext_id, parent_t, kind FROM episodes WHERE ext_id = 'call_A'").get()).toEqual({ parent_ext_id: 'root', parent_t: 0, kind: 'subagent' });
    db.close();
  });

  it('leaves a $0 session unknown when it used a model Crush may have had no price for', async () => {
    const file = buildDb([['root', null, 0, 1200]], { root: messages.root ?? [] });
    const { episodes, warnings } = await readEpisodes(crushImporter, file);
    expect(episodes[0]?.cost_usd ?? null).toBeNull();
    expect(episodes[0]?.log_totals).toEqual({ source: 'crush sessions.cost', cost_usd: 0 });
    expect(warnings).toContainEqual(expect.stringMatching(/1 session\(s\) with \$0 .* unknown, not \$0/));
  });

  it('says so when a parent costs less than the sub-agents added to it', async () => {
    const file = buildDb([['root', null, 0.1], ['call_A', 'root', 0.2]], { root: messages.root ?? [], call_A: messages.call_A ?? [] });
    const { episodes, warnings } = await readEpisodes(crushImporter, file);
    expect(episodes.map((e) => e.cost_usd ?? null)).toEqual([null, 0.2]);
    expect(warnings).toContainEqual(expect.stringMatching(/1 session\(s\) cost less than the sub-agent sessions/));
  });

  it('reads the changes still in crush.db-wal (Crush running or killed)', async () => {
    const dir = tempDir();
    const live = buildDb([['root', null, 0.34]], {}, dir);
    const writer = new Database(live);
    writer.pragma('journal_mode = WAL');
    writer.pragma('wal_autocheckpoint = 0');
    const add = writer.prepare("INSERT INTO messages (id, session_id, role, parts, model, created_at, updated_at) VALUES (?, 'root', ?, ?, ?, 1755039600, 1755039600)");
    for (const m of messages.root ?? []) add.run(m.id, m.role, JSON.stringify(m.parts), m.model ?? '');
    // A snapshot of the folder while Crush holds it open: the messages exist only in the -wal.
    const snapshot = join(tempDir(), 'proj', '.crush');
    mkdirSync(snapshot, { recursive: true });
    copyFileSync(live, join(snapshot, 'crush.db'));
    copyFileSync(`${live}-wal`, join(snapshot, 'crush.db-wal'));
    writer.close();
    const file = join(snapshot, 'crush.db');
    const before = [sha256(file), sha256(`${file}-wal`)];
    const { episodes } = await readEpisodes(crushImporter, file);
    expect(episodes[0]?.turns).toHaveLength(3);
    expect([sha256(file), sha256(`${file}-wal`)]).toEqual(before);
    expect(existsSync(`${file}-shm`)).toBe(false);
  });
});

describe('Crush importer: damaged and foreign databases', () => {
  function copyOf(bytes: Buffer): string {
    const dir = join(tempDir(), '.crush');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'crush.db'), bytes);
    return join(dir, 'crush.db');
  }

  /** The sample, changed by `edit` on a writable copy (never on the fixture). */
  function edited(edit: (db: Database.Database) => void): string {
    const file = copyOf(readFileSync(sample));
    const db = new Database(file);
    edit(db);
    db.close();
    return file;
  }

  async function rejectedThroughPipeline(file: string): Promise<string> {
    const db = openDatabase(join(tempDir(), 'r.db'));
    const report = await importPaths(db, [file]);
    expect(db.prepare('SELECT COUNT(*) FROM episodes').pluck().get()).toBe(0);
    db.close();
    expect(report.files).toMatchObject([{ status: 'rejected' }]);
    return report.files[0]?.reason ?? '';
  }

  it('refuses a truncated copy', async () => {
    const file = copyOf(readFileSync(sample).subarray(0, 100_000));
    expect(await rejectedThroughPipeline(file)).toMatch(/crush\.db:0: truncated: its header counts 66 pages of 4096 bytes \(270336 bytes\), the file has 100000$/);
  });

  it('refuses a copy without its messages table', async () => {
    const file = edited((db) => db.exec('DROP TABLE messages'));
    expect(await rejectedThroughPipeline(file)).toMatch(/crush\.db:0: not a Crush database: no messages table$/);
  });

  it('refuses another program\'s SQLite database named crush.db', async () => {
    const file = copyOf(Buffer.alloc(0));
    const db = new Database(file);
    db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES (\'x\')');
    db.close();
    expect(await rejectedThroughPipeline(file)).toMatch(/crush\.db:0: not a Crush database: no sessions table$/);
  });

  it('refuses a view or a generated column where Crush has a table column', async () => {
    const view = edited((db) => db.exec('ALTER TABLE sessions RENAME TO s2; CREATE VIEW sessions AS SELECT * FROM s2'));
    expect((await rejectionOf(crushImporter, view)).message).toMatch(/:0: not a Crush database: sessions is a view, not a plain table$/);
    const generated = edited((db) => db.exec('ALTER TABLE messages RENAME COLUMN model TO m0; ALTER TABLE messages ADD COLUMN model TEXT GENERATED ALWAYS AS (m0) VIRTUAL'));
    expect((await rejectionOf(crushImporter, generated)).message).toMatch(/:0: not a Crush database: messages\.model is a generated column$/);
  });

  it('refuses hostile values with the row they are in', async () => {
    const cost = edited((db) => db.exec("UPDATE sessions SET cost = 'lots' WHERE id LIKE 'a87%'"));
    expect((await rejectionOf(crushImporter, cost)).message).toMatch(/:0: sessions row 2: cost: /);
    const notJson = edited((db) => db.exec("UPDATE messages SET parts = '[{\"type\":\"text\"' WHERE id = 'ce1e59fc-6a88-473e-bd35-8ce6ba590cea'"));
    expect((await rejectionOf(crushImporter, notJson)).message).toMatch(/:0: message ce1e59fc-6a88-473e-bd35-8ce6ba590cea: parts is not valid JSON$/);
    const blob = edited((db) => db.exec("UPDATE messages SET parts = x'00ff' WHERE id = 'ce1e59fc-6a88-473e-bd35-8ce6ba590cea'"));
    expect((await rejectionOf(crushImporter, blob)).message).toMatch(/:0: message ce1e59fc-.*: parts is blob, not JSON text$/);
    const role = edited((db) => db.exec("UPDATE messages SET role = 'root' WHERE id = 'ce1e59fc-6a88-473e-bd35-8ce6ba590cea'"));
    expect((await rejectionOf(crushImporter, role)).message).toMatch(/:0: message ce1e59fc-.*: unknown role "root"$/);
    // A NULL cost (no NOT NULL in a damaged copy) is unknown, not $0.
    const nullCost = edited((db) => db.exec("DROP TRIGGER update_session_message_count_on_insert; DROP TRIGGER update_session_message_count_on_delete; CREATE TABLE s2 AS SELECT * FROM sessions; DROP TABLE sessions; ALTER TABLE s2 RENAME TO sessions; UPDATE sessions SET cost = NULL"));
    const { episodes } = await readEpisodes(crushImporter, nullCost);
    expect(episodes.map((e) => [e.cost_usd ?? null, e.log_totals ?? null])).toEqual([[null, null], [null, null]]);
  });
});
