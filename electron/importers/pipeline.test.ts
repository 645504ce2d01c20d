import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../db/database.ts';
import type { Db } from '../db/dbHandle.ts';
import { useTempDir } from '../testing/tmp.ts';
import { importPaths, type ImportProgress } from './pipeline.ts';

const example = fileURLToPath(new URL('../../fixtures/canonical/example.jsonl', import.meta.url));
const broken = fileURLToPath(new URL('../../fixtures/broken/canonical-wrong-type.jsonl', import.meta.url));
const tempDir = useTempDir();
const count = (db: Db, table: string): number => db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get() as number;

describe('import pipeline', () => {
  it('is idempotent: the same file again is skipped and changes nothing', async () => {
    const db = openDatabase(join(tempDir(), 'p.db'));
    // An imported file names the runs it went into (the window shows them first), in the order the file has them.
    expect((await importPaths(db, [example])).files[0]?.runs).toEqual(['sw-router-demo', 'hle-router-demo']);
    const before = [count(db, 'episodes'), count(db, 'turns'), count(db, 'turn_fts')];
    const again = await importPaths(db, [example]);
    expect(again.files[0]?.status).toBe('skipped');
    expect(again.files[0]?.runs).toBeUndefined();
    expect([count(db, 'episodes'), count(db, 'turns'), count(db, 'turn_fts')]).toEqual(before);
    db.close();
  });

  it('replaces episodes with the same run and id when a changed file is imported again, and says so', async () => {
    const dir = tempDir();
    const db = openDatabase(join(dir, 'p.db'));
    const mine = join(dir, 'mine.jsonl');
    copyFileSync(example, mine);
    await importPaths(db, [mine]);
    const lines = readFileSync(example, 'utf8').trim().split('\n');
    const first = JSON.parse(lines[0] as string);
    first.turns = first.turns.slice(0, 2);
    writeFileSync(mine, `${JSON.stringify(first)}\n`);
    const report = await importPaths(db, [mine]);
    expect(report.files[0]?.status).toBe('imported');
    expect(report.warnings).toEqual([`${mine}: 1 episode(s) imported earlier from this file replaced by their new content`]);
    expect(count(db, 'episodes')).toBe(13);
    const n = db.prepare('SELECT n_turns FROM episodes WHERE ext_id = ?').pluck().get(first.episode_id);
    expect(n).toBe(2);
    // No orphan text or search rows from the replaced episode.
    expect(count(db, 'turn_text')).toBe(count(db, 'turns'));
    expect(count(db, 'turn_fts')).toBe(count(db, 'turns'));
    db.close();
  });

  it('never replaces or merges an episode another file brought under the same run and id without saying so', async () => {
    const dir = tempDir();
    const db = openDatabase(join(dir, 'p.db'));
    await importPaths(db, [example]);
    const [firstLine, secondLine] = readFileSync(example, 'utf8').trim().split('\n') as [string, string];
    const first = JSON.parse(firstLine);
    // Another file, the same episode: skipped, named as a copy.
    const copy = join(dir, 'copy.jsonl');
    writeFileSync(copy, `${firstLine}\n`);
    const same = await importPaths(db, [copy]);
    expect(same.files[0]).toMatchObject({ status: 'skipped', reason: `already imported (its episode is the same as in ${example})` });
    // Another file, other content under that id: refused naming both files; the stored episode is untouched.
    first.turns = first.turns.slice(0, 2);
    const other = join(dir, 'other.jsonl');
    writeFileSync(other, `${JSON.stringify(first)}\n`);
    const different = await importPaths(db, [other]);
    expect(different.files[0]?.status).toBe('rejected');
    expect(different.files[0]?.reason).toBe(
      `${other}:1: episode "${first.episode_id}" of run "${first.run}" is already in the database from ${example}, ` +
        'with different content: not replaced (import this file with --run NAME to keep both)',
    );
    const n = db.prepare('SELECT n_turns FROM episodes WHERE ext_id = ?').pluck().get(first.episode_id);
    expect(n).toBeGreaterThan(2);
    // Same turns, tokens and cost but an edited action (an edited copy of a log): not the same episode either.
    const edited = JSON.parse(firstLine);
    edited.turns[0].action.text = `${edited.turns[0].action.text ?? ''} (edited)`;
    const editedFile = join(dir, 'edited.jsonl');
    writeFileSync(editedFile, `${JSON.stringify(edited)}\n`);
    expect((await importPaths(db, [editedFile])).files[0]?.reason).toMatch(/with different content: not replaced/);
    // One file holding a copy among new episodes: the new ones are imported, the copy is said.
    const second = JSON.parse(secondLine);
    const mixed = join(dir, 'mixed.jsonl');
    writeFileSync(mixed, `${JSON.stringify({ ...second, episode_id: 'brand-new' })}\n${secondLine}\n`);
    const partly = await importPaths(db, [mixed]);
    expect(partly.files[0]).toMatchObject({ status: 'imported', episodes: 1 });
    expect(partly.warnings).toEqual([`${mixed}: 1 episode(s) skipped: the same as already imported from ${example} ("${second.episode_id}")`]);
    expect(count(db, 'episodes')).toBe(14);
    db.close();
  });

  it('imports the good files of a folder and reports the bad one', async () => {
    const dir = tempDir();
    const logs = join(dir, 'logs');
    mkdirSync(join(logs, 'nested'), { recursive: true });
    copyFileSync(example, join(logs, 'a.jsonl'));
    copyFileSync(broken, join(logs, 'nested', 'b.jsonl'));
    writeFileSync(join(logs, 'notes.txt'), 'not a log');
    const db = openDatabase(join(dir, 'p.db'));
    const report = await importPaths(db, [logs]);
    expect(report.files.map((f) => f.status)).toEqual(['imported', 'rejected']);
    expect(report.files[1]?.reason).toMatch(/b\.jsonl:3: /);
    expect(report.ignored).toEqual([{ path: join(logs, 'notes.txt'), reason: 'not a log: plain text' }]);
    expect(count(db, 'episodes')).toBe(13);
    db.close();
  });

  it('rejects an explicitly named file no importer recognises', async () => {
    const dir = tempDir();
    const file = join(dir, 'notes.txt');
    writeFileSync(file, 'hello');
    const db = openDatabase(join(dir, 'p.db'));
    const report = await importPaths(db, [file]);
    expect(report.files[0]?.status).toBe('rejected');
    expect(report.files[0]?.reason).toMatch(/notes\.txt:1: not a log RouteLens reads \(it reads canonical, .*\); it resembles none of them$/);
    db.close();
  });

  it('renames the run with --run and reports progress', async () => {
    const db = openDatabase(join(tempDir(), 'p.db'));
    const seen: ImportProgress[] = [];
    const report = await importPaths(db, [example], { runName: 'mine', onProgress: (p) => seen.push(p) });
    expect(db.prepare('SELECT name FROM runs').pluck().all()).toEqual(['mine']);
    expect(report.files[0]?.runs).toEqual(['mine']);
    expect(seen.length).toBeGreaterThan(1);
    expect(seen.at(-1)).toMatchObject({ filesDone: 1, filesTotal: 1, episodes: 13, turns: 107 });
    db.close();
  });
});

describe('what the writer fills in', () => {
  it('detects errors by rule where the log has none, and trusts an empty errors array', async () => {
    const db = openDatabase(join(tempDir(), 'p.db'));
    await importPaths(db, [example]);
    const sw = db
      .prepare(`SELECT COUNT(*) FROM turn_errors te JOIN error_types et ON et.id = te.error_type_id
        JOIN turn_text x ON x.turn_id = te.turn_id WHERE et.name = 'no_known_action' AND te.source = 'rule'`)
      .pluck()
      .get() as number;
    const expected = db
      .prepare("SELECT COUNT(*) FROM turn_text WHERE observation LIKE 'No known action matches that input%'")
      .pluck()
      .get();
    expect(sw).toBeGreaterThan(0);
    expect(sw).toBe(expected);
    // handworked t=3 says "No results found" (a search_no_results pattern) but logs errors: [] — no error.
    const t3 = db
      .prepare(`SELECT t.max_severity FROM turns t JOIN episodes e ON e.id = t.episode_id WHERE e.ext_id = 'handworked' AND t.t = 3`)
      .pluck()
      .get();
    expect(t3).toBe(0);
    db.close();
  });

  it('prices turns without a logged cost and counts switches', async () => {
    const db = openDatabase(join(tempDir(), 'p.db'));
    await importPaths(db, [example]);
    const row = db
      .prepare(`SELECT t.cost, t.tokens_in, t.tokens_out, m.price_in_per_m, m.price_out_per_m FROM turns t
        JOIN models m ON m.id = t.model_id JOIN episodes e ON e.id = t.episode_id
        WHERE e.ext_id = 'hle_000' AND t.t = 0 AND t.cost_source = 'priced'`)
      .get() as { cost: number; tokens_in: number; tokens_out: number; price_in_per_m: number; price_out_per_m: number };
    expect(row.cost).toBeCloseTo((row.tokens_in * row.price_in_per_m + row.tokens_out * row.price_out_per_m) / 1e6, 12);
    const hw = db.prepare("SELECT n_switches, n_errors, total_cost FROM episodes WHERE ext_id = 'handworked'").get();
    // models: gpt-5 ×2, deepseek ×3, kimi ×2, gpt-5 ×3 → 3 switches; costs 0.001·(1+…+10) = 0.055
    expect(hw).toEqual({ n_switches: 3, n_errors: 3, total_cost: expect.closeTo(0.055, 12) });
    db.close();
  });
});

describe('episode-level cost and grader calls', () => {
  const line = (extra: Record<string, unknown>, turns: unknown[]) =>
    JSON.stringify({ schema: 'routelens/v1', run: 'r', episode_id: 'e', turns, ...extra });
  const bare = { t: 0, model: 'gpt-5', action: { type: 'tool', tool: 'bash' } };

  it('uses the logged episode total when no turn has a cost or tokens', async () => {
    const dir = tempDir();
    const file = join(dir, 'a.jsonl');
    writeFileSync(file, `${line({ cost_usd: 1.26719 }, [bare, { ...bare, t: 1 }])}\n`);
    const db = openDatabase(join(dir, 'p.db'));
    await importPaths(db, [file]);
    expect(db.prepare('SELECT total_cost, logged_cost FROM episodes').get()).toEqual({ total_cost: 1.26719, logged_cost: 1.26719 });
    expect(db.prepare("SELECT COUNT(*) FROM turns WHERE cost_source = 'none' AND cost = 0").pluck().get()).toBe(2);
    db.close();
  });

  it('keeps grader calls apart from the turns and their cost out of the agent cost', async () => {
    const dir = tempDir();
    const file = join(dir, 'g.jsonl');
    const grader = { model: 'gpt-4o-mini', tokens: { in: 1000, out: 10 }, text: 'GRADE: C' };
    writeFileSync(file, `${line({ grader_calls: [grader] }, [{ ...bare, cost_usd: 0.5 }])}\n`);
    const db = openDatabase(join(dir, 'p.db'));
    await importPaths(db, [file]);
    expect(db.prepare('SELECT n_turns, total_cost, grader_cost FROM episodes').get()).toEqual({
      n_turns: 1, total_cost: 0.5, grader_cost: expect.closeTo((1000 * 0.15 + 10 * 0.6) / 1e6, 12),
    });
    expect(db.prepare('SELECT cost_source, text FROM grader_calls').get()).toEqual({ cost_source: 'priced', text: 'GRADE: C' });
    db.close();
  });
});

describe('a rejected file in the middle of an import', () => {
  it('leaves no cached ids behind: a later file of the same run still imports', async () => {
    const dir = tempDir();
    const logs = join(dir, 'logs');
    mkdirSync(logs);
    // Same runs and an unknown model in both; the bad file comes first and is rolled back.
    const lines = readFileSync(example, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    lines[0].turns[0].model = 'brand-new-model';
    const good = lines.map((l) => JSON.stringify(l)).join('\n');
    writeFileSync(join(logs, 'a-bad.jsonl'), `${good}\n{"schema":"routelens/v1"\n`);
    writeFileSync(join(logs, 'b-good.jsonl'), `${good}\n`);
    const db = openDatabase(join(dir, 'p.db'));
    const report = await importPaths(db, [logs]);
    expect(report.files.map((f) => f.status)).toEqual(['rejected', 'imported']);
    expect(count(db, 'episodes')).toBe(13);
    expect(report.modelsAdded).toEqual(['brand-new-model']);
    db.close();
  });

  it('lists every file of a folder it did not read, with the reason, and reads hidden log files', async () => {
    const dir = tempDir();
    const logs = join(dir, 'logs');
    mkdirSync(join(logs, '.git'), { recursive: true });
    mkdirSync(join(logs, 'run', 'logs', 'x'), { recursive: true });
    copyFileSync(example, join(logs, '.hidden-run.jsonl'));
    writeFileSync(join(logs, '.git', 'HEAD'), 'ref: refs/heads/main');
    writeFileSync(join(logs, 'run', 'logs', 'x', 'report.json'), '{"x": {"resolved": true}}');
    writeFileSync(join(logs, 'README.md'), '# notes');
    writeFileSync(join(logs, 'empty.jsonl'), '');
    writeFileSync(join(logs, 'other.json'), '{"traceId": "a", "spans": 3}');
    writeFileSync(join(logs, 'other.jsonl'), '{"event": "start", "at": 1}\n{"event": "stop", "at": 2}\n');
    writeFileSync(join(logs, 'blob.bin'), Buffer.from([0, 1, 2, 3]));
    const db = openDatabase(join(dir, 'p.db'));
    const report = await importPaths(db, [logs]);
    expect(report.files.map((f) => [f.path, f.status])).toEqual([[join(logs, '.hidden-run.jsonl'), 'imported']]);
    expect(Object.fromEntries(report.ignored.map((i) => [i.path.slice(logs.length + 1), i.reason]))).toEqual({
      '.git': 'folder not searched (version control or packages)',
      'blob.bin': 'not a log: binary file',
      'empty.jsonl': 'empty file',
      'other.json': 'unknown format: a JSON object with keys "traceId", "spans"',
      'other.jsonl': 'unknown format: JSON Lines whose first record has keys "event", "at"',
      'README.md': 'not a log: Markdown text',
      'run/logs/x/report.json': 'sidecar of mini-swe-agent logs (read with the trajectories beside it, not on its own)',
    });
    db.close();
  });

  it('says what a forced --format expects when the file is not of that format', async () => {
    const db = openDatabase(join(tempDir(), 'p.db'));
    const report = await importPaths(db, [example], { format: 'claude-code' });
    expect(report.files[0]?.status).toBe('rejected');
    expect(report.files[0]?.reason).toMatch(/^.+example\.jsonl:\d+: .*\(--format claude-code expects a Claude Code session transcript: JSON Lines/);
    expect(count(db, 'episodes')).toBe(0);
    db.close();
  });
});
