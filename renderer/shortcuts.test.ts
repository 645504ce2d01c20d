import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as shortcuts from './shortcuts.ts';
import { GLOBAL_KEYS, globalKeyOf, INSPECTOR_PANEL_KEYS, KEY_GROUPS, keyAction, keyLabel, matches, PAIR_KEYS, TURN_KEYS, type KeyBinding } from './shortcuts.ts';

const press = (key: string, mods: Partial<{ ctrlKey: boolean; metaKey: boolean; altKey: boolean; shiftKey: boolean }> = {}) => ({
  key,
  ctrlKey: false,
  metaKey: false,
  altKey: false,
  ...mods,
});

describe('the keys of the window', () => {
  it('binds no key to two actions of one view, and none the global keys take', () => {
    const global: readonly string[] = Object.values(GLOBAL_KEYS).flatMap((b) => b.keys);
    for (const view of [[...Object.values(TURN_KEYS), ...Object.values(INSPECTOR_PANEL_KEYS)], Object.values(PAIR_KEYS)]) {
      const keys = view.flatMap((b) => b.keys);
      expect(new Set(keys).size).toBe(keys.length);
      // The pair's Escape goes back to Compare where nothing else is open to close.
      expect(keys.filter((k) => global.includes(k) && k !== 'Escape')).toEqual([]);
    }
  });

  it('lists every binding of every table in the help, each once', () => {
    const listed = KEY_GROUPS.flatMap((g) => g.bindings);
    const isBinding = (v: unknown): v is KeyBinding => typeof v === 'object' && v !== null && 'keys' in v && 'what' in v;
    const tables = Object.values(shortcuts).filter((v) => typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every(isBinding));
    expect(tables.length).toBeGreaterThanOrEqual(8);
    for (const table of tables) for (const b of Object.values(table as Record<string, KeyBinding>)) expect(listed).toContainEqual(b);
    // Once per group; the pair shares the inspector's stepping keys, so those are listed under both.
    for (const g of KEY_GROUPS) expect(new Set(g.bindings).size).toBe(g.bindings.length);
    // The keys a walk-through found missing from `?`: what-if, the step debugger's, and the pair view's.
    const keys = listed.flatMap((b) => b.keys);
    for (const k of ['w', 'p', 'c', 'C', 'n', 'N', 'Escape', 'Enter', 'Home', 'Tab']) expect(keys).toContain(k);
    expect(KEY_GROUPS.map((g) => g.title)).toContain('Split inspector (a pair of episodes)');
  });

  it('is where every key handler of the window finds its keys: none compares a key with a literal of its own', () => {
    const root = fileURLToPath(new URL('.', import.meta.url));
    const sources = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
        d.isDirectory() ? sources(join(dir, d.name)) : /\.tsx?$/.test(d.name) && !/\.test\.tsx?$/.test(d.name) ? [join(dir, d.name)] : [],
      );
    // `e.key === 'x'`, `event.key !== "x"`, or a switch over a key's named values.
    const literal = /\b(?:e|ev|event)\.key\s*[!=]==?\s*['"`]|\bcase\s+['"](?:Arrow\w+|Home|End|Enter|Escape|Tab|PageUp|PageDown| )['"]/;
    const offenders = sources(root)
      .filter((f) => !f.endsWith('shortcuts.ts'))
      .flatMap((f) => readFileSync(f, 'utf8').split('\n').map((line, i) => ({ at: `${relative(root, f)}:${i + 1}`, line })))
      .filter((x) => literal.test(x.line))
      .map((x) => `${x.at}: ${x.line.trim()}`);
    expect(offenders).toEqual([]);
  });

  it('finds the action of a press in a table', () => {
    expect(keyAction(PAIR_KEYS, press('n'))).toBe('nextDifference');
    expect(keyAction(PAIR_KEYS, press('N', { shiftKey: true }))).toBe('prevDifference');
    expect(keyAction(PAIR_KEYS, press(']'))).toBeNull();
    expect(keyAction(INSPECTOR_PANEL_KEYS, press('C', { shiftKey: true }))).toBe('prevBreak');
    expect(keyAction(INSPECTOR_PANEL_KEYS, press('w', { ctrlKey: true }))).toBeNull();
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
    expect(keyLabel(' ')).toEqual(['Space']);
    expect(matches(TURN_KEYS.prevError, press('N', { shiftKey: true }))).toBe(true);
    expect(matches(TURN_KEYS.prevError, press('n'))).toBe(false);
  });
});
