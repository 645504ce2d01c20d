import { describe, expect, it } from 'vitest';
import { turnActionOf } from './useTurnKeys.ts';

const press = (key: string, mods: Partial<{ ctrlKey: boolean; metaKey: boolean; altKey: boolean }> = {}) => ({
  key,
  ctrlKey: false,
  metaKey: false,
  altKey: false,
  ...mods,
});

describe('turnActionOf', () => {
  it('reads turn and episode keys apart', () => {
    expect(turnActionOf(press('j'))).toBe('next');
    expect(turnActionOf(press('J'))).toBe('nextEpisode');
    expect(turnActionOf(press(']'))).toBe('nextEpisode');
    expect(turnActionOf(press('['))).toBe('prevEpisode');
    expect(turnActionOf(press('K'))).toBe('prevEpisode');
    expect(turnActionOf(press('N'))).toBe('prevError');
  });

  it('leaves chords and unknown keys to others', () => {
    expect(turnActionOf(press('j', { ctrlKey: true }))).toBeNull();
    expect(turnActionOf(press(']', { metaKey: true }))).toBeNull();
    expect(turnActionOf(press('x'))).toBeNull();
  });
});
