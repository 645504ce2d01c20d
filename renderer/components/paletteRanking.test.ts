import { defaultFilter } from 'cmdk';
import { describe, expect, it } from 'vitest';
import { rankEntries, rankEpisodeIds, type PaletteEntry } from './paletteRanking.ts';

const entry = (id: string, group: string, words: string[], always?: number): PaletteEntry<string> => ({ id, group, words, always, label: id });
const ENTRIES = [
  entry('view-episodes', 'Go to', ['Episodes', 'list']),
  entry('view-runs', 'Go to', ['Runs']),
  entry('run-open-1', 'Runs', ['episodes of hle-router-demo', 'hle-router-demo episodes']),
  entry('action-theme', 'Actions', ['theme', 'dark theme']),
  entry('search-turns', 'Search', [], 0.0001),
];
const ids = (typed: string) => rankEntries(ENTRIES, typed, defaultFilter).flatMap((g) => g.entries.map((e) => e.id));

describe('the palette order', () => {
  it('keeps the given order when nothing is typed', () => {
    expect(ids('')).toEqual(ENTRIES.map((e) => e.id));
  });

  it('puts the group of the best match first, and the search of the turns last', () => {
    expect(ids('theme')[0]).toBe('action-theme');
    expect(ids('theme').at(-1)).toBe('search-turns');
    expect(ids('episodes')[0]).toBe('view-episodes');
  });

  it('scores each word alone: letters spread across words do not match', () => {
    expect(ids('theme')).not.toContain('run-open-1');
    expect(ids('zzz')).toEqual(['search-turns']);
  });
});

describe('episodes found by their id', () => {
  const rows = ['melt_12_e4', 'remelt_1', 'melt_1_run1', 'MELT_1', 'boil_0', 'melt_1'].map((ext_id, id) => ({ id, ext_id }));
  const order = (typed: string) => rankEpisodeIds(rows, typed).map((r) => r.ext_id);

  it('puts the id typed exactly first, then another case of it, then ids starting with it, then ids holding it', () => {
    expect(order('melt_1')).toEqual(['melt_1', 'MELT_1', 'melt_12_e4', 'melt_1_run1', 'remelt_1']);
    expect(order(' MELT_1 ')[0]).toBe('MELT_1');
  });

  it('leaves out ids without the text, and finds nothing for nothing typed', () => {
    expect(order('boil')).toEqual(['boil_0']);
    expect(order('')).toEqual([]);
  });
});
