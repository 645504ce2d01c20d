import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CanonicalEpisode } from '../../shared/canonical.ts';
import { defaultErrorRules } from '../analysis/errorRules.ts';
import { useTempDir } from '../testing/tmp.ts';
import { openDatabase, type Db } from './database.ts';
import { EpisodeWriter, wellFormed } from './episodeWriter.ts';

const tempDir = useTempDir();

function episode(id: string, texts: string[], candidates?: Record<string, number>): CanonicalEpisode {
  return {
    schema: 'routelens/v1',
    run: 'r',
    episode_id: id,
    task: { id: 't', type: 'scienceworld' },
    outcome: { score: 1, score_range: [0, 1], success: true },
    turns: texts.map((text, t) => ({ t, model: 'gpt-5', action: { type: 'tool', tool: 'env', text }, observation: `seen ${text}`, candidates })),
  } as CanonicalEpisode;
}

const matches = (db: Db, word: string): number => db.prepare('SELECT COUNT(*) FROM turn_fts WHERE turn_fts MATCH ?').pluck().get(word) as number;
const integrityOk = (db: Db): void => void db.exec("INSERT INTO turn_fts(turn_fts) VALUES ('integrity-check')");

describe('EpisodeWriter', () => {
  it('indexes the text of every turn written before flushText, and of no other', () => {
    const db = openDatabase(join(tempDir(), 'w.db'));
    const writer = new EpisodeWriter(db, defaultErrorRules());
    db.exec('BEGIN');
    writer.write(episode('a', ['open door', 'walk north']), 'canonical', 'f', null);
    writer.write(episode('b', ['open window']), 'canonical', 'f', null);
    expect(matches(db, 'open')).toBe(0);
    writer.flushText();
    db.exec('COMMIT');
    expect(matches(db, 'open')).toBe(2);
    expect(matches(db, 'seen')).toBe(3);
    integrityOk(db);
    db.close();
  });

  it('replaces an episode written earlier in the same transaction without corrupting the index', () => {
    const db = openDatabase(join(tempDir(), 'w.db'));
    const writer = new EpisodeWriter(db, defaultErrorRules());
    db.exec('BEGIN');
    writer.write(episode('a', ['light lamp', 'light stove']), 'canonical', 'f', null);
    // Deleting turn_text un-indexes it through a trigger: the first version must be indexed by then.
    const second = writer.write(episode('a', ['boil water']), 'canonical', 'f', null);
    writer.flushText();
    db.exec('COMMIT');
    expect(second.replaced).toBe(true);
    expect(matches(db, 'light')).toBe(0);
    expect(matches(db, 'boil')).toBe(1);
    integrityOk(db);
    db.close();
  });

  it('keeps the last score when two candidate names are aliases of one model, as a replace would', () => {
    const db = openDatabase(join(tempDir(), 'w.db'));
    const writer = new EpisodeWriter(db, defaultErrorRules());
    db.exec('BEGIN');
    writer.write(episode('a', ['x'], { 'gpt-5': 0.1, 'openai/gpt-5': 0.7, 'kimi-k2': 0.3 }), 'canonical', 'f', null);
    writer.flushText();
    db.exec('COMMIT');
    const rows = db
      .prepare('SELECT m.name, c.logged_score FROM turn_candidates c JOIN models m ON m.id = c.model_id ORDER BY m.name')
      .raw()
      .all();
    expect(rows).toEqual([
      ['gpt-5', 0.7],
      ['kimi-k2', 0.3],
    ]);
    db.close();
  });
});

describe('wellFormed', () => {
  it('replaces lone surrogates in values and keys with U+FFFD, keeps pairs, and returns a clean value itself', () => {
    const clean = { a: ['x', '😀', 1, null], b: { c: 'd' } };
    expect(wellFormed(clean)).toEqual({ value: clean, repaired: 0 });
    expect(wellFormed(clean).value).toBe(clean);
    const dirty = { 'k\ud800': 'v', list: ['ok', 'a\udc00b', '\ud83d'], nested: { s: '\ud83d\ude00 \ud83d' } };
    const { value, repaired } = wellFormed(dirty);
    expect(repaired).toBe(4);
    expect(value).toEqual({ 'k\uFFFD': 'v', list: ['ok', 'a\uFFFDb', '\uFFFD'], nested: { s: '😀 \uFFFD' } });
    expect(dirty['k\ud800']).toBe('v'); // the input is not changed
  });
});
