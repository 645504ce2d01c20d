import { describe, expect, it } from 'vitest';
import { DEFAULT_PREFS, loadPrefs, savePrefs } from './prefs.ts';

const stored = (value: unknown) => ({ getItem: () => (typeof value === 'string' ? value : JSON.stringify(value)) });

describe('prefs', () => {
  it('loads a value stored before the inspector layout existed, keeping its theme', () => {
    expect(loadPrefs(stored({ version: 1, theme: 'dark' }))).toEqual({ version: 1, theme: 'dark', inspector: {} });
  });

  it('keeps the theme when the inspector part is malformed', () => {
    expect(loadPrefs(stored({ version: 1, theme: 'light', inspector: { header: 'tiny' } }))).toEqual({
      version: 1,
      theme: 'light',
      inspector: {},
    });
  });

  it('round-trips the inspector layout', () => {
    let raw = '';
    const prefs = { version: 1 as const, theme: null, inspector: { header: 'compact' as const, timeline: 'full' as const, debuggerOpen: false } };
    savePrefs(prefs, { setItem: (_k, v) => (raw = v) });
    expect(loadPrefs(stored(raw))).toEqual(prefs);
  });

  it('falls back to defaults for another version or broken JSON', () => {
    expect(loadPrefs(stored({ version: 2, theme: 'dark' }))).toEqual(DEFAULT_PREFS);
    expect(loadPrefs(stored('{not json'))).toEqual(DEFAULT_PREFS);
    expect(loadPrefs(stored(''))).toEqual(DEFAULT_PREFS);
  });
});
