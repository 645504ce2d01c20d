import { describe, expect, it } from 'vitest';
import { episodeKey } from './episodeRows.ts';

describe('episodeKey', () => {
  it('is the same number every release has stored for an episode (a re-import finds and replaces it)', () => {
    // Computed with the Hash-object implementation every earlier release used (sha256 of run, NUL, id: 13 hex digits).
    expect(episodeKey('sw-mtrouter', 'find-animal_17_e0')).toBe(4012178902928248);
    // Non-ASCII and a lone surrogate hash as their UTF-8 bytes (U+FFFD for the surrogate), as before.
    expect(episodeKey('claude-code', 'sessión \ud800')).toBe(1883446662219189);
    expect(episodeKey('claude-code', 'sessión \ud800')).toBe(episodeKey('claude-code', 'sessión \ufffd'));
  });
});
