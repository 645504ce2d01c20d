import { describe, expect, it } from 'vitest';
import { EPISODE_LIST_KEYS, GLOBAL_KEYS, globalKeyOf, KEY_GROUPS, keyLabel, matches, TURN_KEYS } from './shortcuts.ts';

const press = (key: string, mods: Partial<{ ctrlKey: boolean; metaKey: boolean; altKey: boolean; shiftKey: boolean }> = {}) => ({
  key,
  ctrlKey: false,
  metaKey: false,
  altKey: false,
  ...mods,
});

describe('the keys of the window', () => {
  it('binds no key to two inspector actions, and none the global keys take', () => {
    const inspector = Object.values(TURN_KEYS).flatMap((b) => b.keys);
    expect(new Set(inspector).size).toBe(inspector.length);
    const global: readonly string[] = Object.values(GLOBAL_KEYS).flatMap((b) => b.keys);
    expect(inspector.filter((k) => global.includes(k))).toEqual([]);
  });

  it('lists every binding in the help, each once', () => {
    const listed = KEY_GROUPS.flatMap((g) => g.bindings);
    for (const b of [...Object.values(GLOBAL_KEYS), ...Object.values(TURN_KEYS), ...EPISODE_LIST_KEYS]) expect(listed).toContain(b);
    expect(new Set(listed).size).toBe(listed.length);
  });

  it('opens the palette on Ctrl+K, or ⌘K on a Mac, even from a text field', () => {
    expect(globalKeyOf(press('k', { ctrlKey: true }), false, false)).toBe('palette');
    expect(globalKeyOf(press('K', { ctrlKey: true, shiftKey: true }), true, false)).toBe('palette');
    expect(globalKeyOf(press('k', { metaKey: true }), true, true)).toBe('palette');
    // Ctrl+K on a Mac is the text field's "delete to end of line"; plain k is a letter.
    expect(globalKeyOf(press('k', { ctrlKey: true }), false, true)).toBeNull();
    expect(globalKeyOf(press('k'), false, false)).toBeNull();
    expect(globalKeyOf(press('k', { ctrlKey: true, altKey: true }), false, false)).toBeNull();
  });

  it('leaves ? and / to a text field being typed in', () => {
    expect(globalKeyOf(press('?', { shiftKey: true }), false, false)).toBe('help');
    expect(globalKeyOf(press('/'), false, false)).toBe('search');
    expect(globalKeyOf(press('?', { shiftKey: true }), true, false)).toBeNull();
    expect(globalKeyOf(press('/'), true, false)).toBeNull();
    expect(globalKeyOf(press('/', { ctrlKey: true }), false, false)).toBeNull();
  });

  it('writes keys as a keyboard shows them', () => {
    expect(keyLabel('Mod+k', false)).toEqual(['Ctrl', 'K']);
    expect(keyLabel('Mod+k', true)).toEqual(['⌘', 'K']);
    expect(keyLabel('N')).toEqual(['Shift', 'N']);
    expect(keyLabel('j')).toEqual(['j']);
    expect(keyLabel('ArrowDown')).toEqual(['↓']);
    expect(matches(TURN_KEYS.prevError, press('N', { shiftKey: true }))).toBe(true);
    expect(matches(TURN_KEYS.prevError, press('n'))).toBe(false);
  });
});
