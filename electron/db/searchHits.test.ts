import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CanonicalEpisode } from '../../shared/canonical.ts';
import { defaultErrorRules } from '../analysis/errorRules.ts';
import { useTempDir } from '../testing/tmp.ts';
import { openDatabase } from './database.ts';
import type { Db } from './dbHandle.ts';
import { queryEpisodes } from './episodeQueries.ts';
import { EpisodeWriter } from './episodeWriter.ts';
import { ftsQuery, searchHits, SNIPPET_LEAD_CHARS, SNIPPET_PIECE_CHARS, snippetPieces } from './searchHits.ts';

const tempDir = useTempDir();

/** Turns numbered from `first` (logs do not always start at 0), each an action and its observation. */
function episode(id: string, turns: [string, string][], first = 0): CanonicalEpisode {
  return {
    schema: 'routelens/v1',
    run: 'r',
    episode_id: id,
    task: { id: 't', type: 'swe' },
    outcome: { score: 1, score_range: [0, 1], success: true },
    turns: turns.map(([text, observation], i) => ({ t: first + i, model: 'gpt-5', action: { type: 'tool', tool: 'bash', text }, observation })),
  } as CanonicalEpisode;
}

function database(episodes: CanonicalEpisode[]): Db {
  const db = openDatabase(join(tempDir(), 'search.db'));
  const writer = new EpisodeWriter(db, defaultErrorRules());
  db.exec('BEGIN');
  for (const e of episodes) writer.write(e, 'canonical', 'f', null);
  writer.flushText();
  db.exec('COMMIT');
  return db;
}

const ids = (db: Db): Record<string, number> =>
  Object.fromEntries((db.prepare('SELECT ext_id, id FROM episodes').all() as { ext_id: string; id: number }[]).map((r) => [r.ext_id, r.id]));

const marked = (pieces: { text: string; hit: boolean }[]): string => pieces.map((p) => (p.hit ? `[${p.text}]` : p.text)).join('');

describe('search hits', () => {
  it('finds the first matching turn, its position, the count and the text around the hit', () => {
    const db = database([
      episode('a', [['ls', 'README.md'], ['cat setup.py', 'Traceback:\n   NameError: x'], ['python x.py', 'NameError again']], 5),
      episode('b', [['echo nameless', 'ok']]),
      episode('c', [['grep NameError src', 'nothing']]),
    ]);
    const id = ids(db);
    const hits = searchHits(db, [id.a!, id.b!, id.c!], 'nameerr');
    expect(hits.get(id.a!)).toEqual({ t: 6, index: 1, turns: 2, field: 'observation', snippet: [{ text: 'Traceback: ', hit: false }, { text: 'NameError', hit: true }, { text: ': x', hit: false }] });
    expect(hits.has(id.b!)).toBe(false);
    // A hit in the command shows the command.
    expect(hits.get(id.c!)?.field).toBe('action');
    expect(marked(hits.get(id.c!)!.snippet)).toBe('grep [NameError] src');
    db.close();
  });

  it('marks every word of the search, and only for the episodes asked about', () => {
    const db = database([episode('a', [['open the door', 'the door is locked']]), episode('b', [['open door', 'done']])]);
    const id = ids(db);
    const hits = searchHits(db, [id.a!], 'door lock');
    expect([...hits.keys()]).toEqual([id.a]);
    expect(marked(hits.get(id.a!)!.snippet)).toBe('the [door] is [locked]');
    db.close();
  });

  it('keeps log markup as text and stays quiet on text with no words', () => {
    const db = database([episode('a', [['echo', '<img src=x onerror=alert(1)> done']])]);
    const id = ids(db);
    expect(marked(searchHits(db, [id.a!], 'onerror').get(id.a!)!.snippet)).toBe('<img src=x [onerror]=alert(1)> done');
    expect(searchHits(db, [id.a!], '"( AND').size).toBe(0);
    expect(ftsQuery('a "b" NEAR(')).toBe('"a"* AND "b"* AND "NEAR"*');
    db.close();
  });

  it('rides along on a searched page of episodes, and only then', () => {
    const db = database([episode('hit', [['ls', 'x'], ['make', 'error: missing']]), episode('error-in-name', [['ls', 'fine']])]);
    const base = { sort: 'id', desc: false, offset: 0, limit: 50, outcome: 'any' } as const;
    const page = queryEpisodes(db, { ...base, search: 'error' });
    const byExt = Object.fromEntries(page.rows.map((r) => [r.ext_id, r]));
    expect(byExt.hit?.match).toMatchObject({ t: 1, index: 1, turns: 1 });
    // Listed for its id, not its text: no turn to open at.
    expect(byExt['error-in-name']?.match).toBeNull();
    expect(queryEpisodes(db, base).rows.every((r) => r.match === undefined)).toBe(true);
    db.close();
  });

  it('finds a NUL only where an id holds one, and cut ids as a whole (issue 38 item 7: "\\0" listed every episode)', () => {
    const db = database([episode('Django__12', [['ls', 'x']]), episode('odd\u0000id', [['ls', 'y']]), episode('50%_done', [['ls', 'z']])]);
    const base = { sort: 'id', desc: false, offset: 0, limit: 50, outcome: 'any' } as const;
    const found = (search: string) => queryEpisodes(db, { ...base, search }).rows.map((r) => r.ext_id);
    expect(found('\u0000')).toEqual(['odd\u0000id']);
    expect(found('\u0000\u0000')).toEqual([]);
    // Before the NUL is not the whole search: "odd\0x" must not find "odd\0id".
    expect(found('odd\u0000x')).toEqual([]);
    // Case-insensitive as before, and % and _ are the characters themselves.
    expect(found('django__1')).toEqual(['Django__12']);
    expect(found('%_')).toEqual(['50%_done']);
    db.close();
  });
});

describe('search over the messages between and after the turns', () => {
  // The shape of a Claude Code session as its importer writes it: the first prompt is the task, a prompt typed
  // mid-session and an injected reminder reach the model before turn 1, a compaction summary before turn 2, and the
  // user's last words come after the last response.
  function conversation(id: string): CanonicalEpisode {
    const ep = episode(id, [['read README.md', 'ok'], ['edit config.ts', 'done'], ['run tests', 'all pass']]);
    ep.task.text = 'fix the build';
    ep.turns[1]!.inputs = [
      { role: 'user', text: 'please also check the zanzibar settings', timestamp: '2025-01-01T00:01:00Z' },
      { role: 'system', text: '<system-reminder>todo list is empty</system-reminder>' },
    ];
    ep.turns[2]!.inputs = [{ role: 'summary', text: 'Earlier: the build failed on a quokka import.' }];
    ep.final_messages = [{ role: 'user', text: 'thanks, ship it to wombat-prod', timestamp: '2025-01-01T00:09:00Z' }];
    return ep;
  }

  it('finds a word only a mid-session prompt holds, and says which turn and message', () => {
    const db = database([conversation('a'), episode('b', [['ls', 'zanzibar is not here']])]);
    const id = ids(db);
    const hit = searchHits(db, [id.a!, id.b!], 'zanzibar');
    expect(hit.get(id.a!)).toMatchObject({ t: 1, index: 1, turns: 1, field: 'message', message: { role: 'user', index: 0, final: false } });
    expect(marked(hit.get(id.a!)!.snippet)).toBe('please also check the [zanzibar] settings');
    expect(hit.get(id.b!)).toMatchObject({ t: 0, field: 'observation' });
    expect(searchHits(db, [id.a!], 'todo list').get(id.a!)?.message).toEqual({ role: 'system', index: 1, final: false });
    expect(searchHits(db, [id.a!], 'quokka').get(id.a!)).toMatchObject({ t: 2, index: 2, message: { role: 'summary', index: 0 } });
    db.close();
  });

  it('finds a word only a message after the last turn holds, at the last turn', () => {
    const db = database([conversation('a')]);
    const id = ids(db);
    expect(searchHits(db, [id.a!], 'wombat')).toEqual(new Map([[id.a!, {
      t: 2, index: 2, turns: 1, field: 'message', message: { role: 'user', index: 0, final: true },
      snippet: [{ text: 'thanks, ship it to ', hit: false }, { text: 'wombat', hit: true }, { text: '-prod', hit: false }],
    }]]));
    db.close();
  });

  it('shows the earlier of a turn and a message, and counts each matching turn once', () => {
    const ep = conversation('a');
    ep.turns[0]!.observation = 'the zanzibar settings are in config.ts';
    ep.turns[1]!.observation = 'zanzibar: on';
    const db = database([ep]);
    const id = ids(db);
    // Turn 0's own text comes before the prompt that reached turn 1; turn 1 counts once for its prompt and its text.
    expect(searchHits(db, [id.a!], 'zanzibar').get(id.a!)).toMatchObject({ t: 0, field: 'observation', turns: 2 });
    db.close();
  });

  it('lists an episode whose only match is a message, and forgets the messages of a replaced episode', () => {
    const path = join(tempDir(), 'replace.db');
    const db = openDatabase(path);
    const writer = new EpisodeWriter(db, defaultErrorRules());
    const base = { sort: 'id', desc: false, offset: 0, limit: 50, outcome: 'any' } as const;
    db.transaction(() => {
      writer.write(conversation('a'), 'canonical', 'f', null);
      writer.flushText();
    })();
    writer.commit();
    expect(queryEpisodes(db, { ...base, search: 'wombat' }).rows.map((r) => [r.ext_id, r.match?.field])).toEqual([['a', 'message']]);
    // Re-import of a changed file: the old episode's messages leave the index with it.
    const changed = conversation('a');
    changed.final_messages = [{ role: 'user', text: 'never mind' }];
    db.transaction(() => {
      writer.write(changed, 'canonical', 'f', null);
      writer.flushText();
    })();
    writer.commit();
    expect(queryEpisodes(db, { ...base, search: 'wombat' }).total).toBe(0);
    expect(queryEpisodes(db, { ...base, search: 'never mind' }).total).toBe(1);
    // The external-content index agrees with the table (SQLITE_CORRUPT_VTAB otherwise).
    expect(() => db.prepare("INSERT INTO message_fts(message_fts, rank) VALUES ('integrity-check', 1)").run()).not.toThrow();
    db.close();
  });
});

describe('snippet pieces', () => {
  it('splits on the marks, folds white space and merges neighbours', () => {
    expect(snippetPieces('a\n\n  b\uE000c\uE001\uE000d\uE001 e')).toEqual([
      { text: 'a b', hit: false },
      { text: 'cd', hit: true },
      { text: ' e', hit: false },
    ]);
    expect(snippetPieces('')).toEqual([]);
  });

  it('cuts a long piece to SNIPPET_PIECE_CHARS (before the first hit to SNIPPET_LEAD_CHARS), keeping the end nearest a hit', () => {
    // One "token" of 10 MB before the hit (FTS5 counts it as one word of context), a long one after.
    const before = `${'A'.repeat(10 * 2 ** 20)}B`;
    const pieces = snippetPieces(`${before}\uE000pwned\uE001 ${'z'.repeat(1000)}`);
    expect(pieces.map((p) => p.hit)).toEqual([false, true, false]);
    expect(pieces[0]?.text).toBe(`…${before.slice(-SNIPPET_LEAD_CHARS)}`);
    expect(pieces[2]?.text).toBe(` ${'z'.repeat(SNIPPET_PIECE_CHARS - 1)}…`);
    // Between two hits both ends stay; white space is folded before the cut.
    const middle = snippetPieces(`\uE000a\uE001${'x'.repeat(500)}\n\n   ${'y'.repeat(500)}\uE000b\uE001`)[1]?.text;
    expect(middle).toBe(`${'x'.repeat(SNIPPET_PIECE_CHARS / 2)}…${'y'.repeat(SNIPPET_PIECE_CHARS / 2)}`);
  });
});
