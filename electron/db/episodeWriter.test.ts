import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CanonicalEpisode } from '../../shared/canonical.ts';
import { defaultErrorRules } from '../analysis/errorRules.ts';
import { useTempDir } from '../testing/tmp.ts';
import { openDatabase } from './database.ts';
import type { Db } from './dbHandle.ts';
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

  it('refuses an episode written twice in one file, and replaces it from a later import of that file without corrupting the index', () => {
    const db = openDatabase(join(tempDir(), 'w.db'));
    const writer = new EpisodeWriter(db, defaultErrorRules());
    db.exec('BEGIN');
    writer.write(episode('a', ['light lamp', 'light stove']), 'canonical', 'f', null);
    // One file naming one episode twice: refused, never the later copy silently kept (issue 34).
    expect(() => writer.write(episode('a', ['boil water']), 'canonical', 'f', null)).toThrow(
      'f:1: episode "a" of run "r" appears twice in this file: not merged',
    );
    writer.flushText();
    db.exec('COMMIT');
    writer.commit();
    db.exec('BEGIN');
    const second = writer.write(episode('a', ['boil water']), 'canonical', 'f', null);
    writer.flushText();
    db.exec('COMMIT');
    writer.commit();
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

  it('keeps an unknown cost unknown: counted in unpriced_turns, never priced as $0', () => {
    const db = openDatabase(join(tempDir(), 'u.db'));
    const writer = new EpisodeWriter(db, defaultErrorRules());
    const ep = (id: string, model: string, tokens: CanonicalEpisode['turns'][number]['tokens']): CanonicalEpisode => ({
      ...episode(id, ['a', 'b']),
      turns: episode(id, ['a', 'b']).turns.map((t) => ({ ...t, model, tokens })),
    });
    db.exec('BEGIN');
    writer.write(ep('custom', 'aide-gpt-5', { in: 100, out: 10 }), 'canonical', 'f', null);
    writer.write(ep('haiku', 'claude-haiku-4-5-20251001', { in: 10_000, out: 1_000, cached: 6_000, cache_write: 3_000 }), 'canonical', 'f', null);
    writer.write(ep('no-tokens', 'gpt-5', null), 'canonical', 'f', null);
    db.exec('COMMIT');
    const rows = db.prepare('SELECT ext_id, total_cost, unpriced_turns FROM episodes ORDER BY ext_id').all();
    expect(rows).toEqual([
      { ext_id: 'custom', total_cost: 0, unpriced_turns: 2 },
      // Two turns at the hand-computed $0.01035 each (listPrices.test.ts), cache writes at $1.25/M.
      { ext_id: 'haiku', total_cost: expect.closeTo(0.0207, 12), unpriced_turns: 0 },
      { ext_id: 'no-tokens', total_cost: 0, unpriced_turns: 2 },
    ]);
    // The library priced a model outside the pool under its normalised name, the logged spelling an alias.
    expect(db.prepare("SELECT name, price_source, price_cache_write_per_m FROM models WHERE name LIKE 'claude-haiku%'").all()).toEqual([
      { name: 'claude-haiku-4-5', price_source: 'genai-prices', price_cache_write_per_m: 1.25 },
    ]);
    expect(db.prepare("SELECT DISTINCT cost_source FROM turns t JOIN episodes e ON e.id = t.episode_id WHERE e.ext_id = 'custom'").pluck().all()).toEqual(['none']);
    db.close();
  });

  it('prices per-model session totals when no turn has a cost, and stores child-episode links and turn details', () => {
    const db = openDatabase(join(tempDir(), 'c.db'));
    const writer = new EpisodeWriter(db, defaultErrorRules());
    const base = episode('s/agent-1', ['a']);
    db.exec('BEGIN');
    writer.write({
      ...base,
      turns: base.turns.map((t) => ({ ...t, model: 'claude-sonnet-4.6', reasoning: 'think', tool_calls: [{ name: 'Bash', input: '{"command":"ls"}', result: 'x' }], notes: ['inferred'] })),
      usage_totals: [{ model: 'claude-sonnet-4.6', requests: 1, tokens: { in: 1_000_000, out: 100_000 } }],
      parent: { episode_id: 's', t: 3, tool_call_id: 'toolu_1' },
      kind: 'subagent',
      agent: { name: 'copilot-cli', version: '1.0.34' },
      system_prompt: 'You are…',
    }, 'canonical', 'f', null);
    writer.flushText();
    db.exec('COMMIT');
    // $3/M in and $15/M out (Claude Sonnet 4.6 in the price library): 3 + 1.5.
    expect(db.prepare('SELECT total_cost, unpriced_turns, parent_ext_id, parent_t, kind, agent FROM episodes').get()).toEqual({
      total_cost: expect.closeTo(4.5, 9), unpriced_turns: 0, parent_ext_id: 's', parent_t: 3, kind: 'subagent', agent: 'copilot-cli 1.0.34',
    });
    expect(JSON.parse(db.prepare('SELECT detail FROM turn_text').pluck().get() as string)).toEqual({
      reasoning: 'think', tool_calls: [{ name: 'Bash', input: '{"command":"ls"}', result: 'x' }], notes: ['inferred'],
    });
    expect(db.prepare('SELECT system_prompt FROM episode_text').pluck().get()).toBe('You are…');
    db.close();
  });
});
