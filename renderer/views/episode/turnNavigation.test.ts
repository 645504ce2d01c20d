import { describe, expect, it } from 'vitest';
import { clampTurn, nextError, nextSwitch, prevError, prevSwitch } from './turnNavigation.ts';

const err = [{ type: 'x', severity: 'high' as const, source: 'log' as const }];
const turns = [
  { errors: [], switched: false },
  { errors: err, switched: true },
  { errors: [], switched: false },
  { errors: err, switched: false },
  { errors: [], switched: true },
];

describe('turn navigation', () => {
  it('finds the next and previous error from any turn', () => {
    expect(nextError(turns, 0)).toBe(1);
    expect(nextError(turns, 1)).toBe(3);
    expect(nextError(turns, 3)).toBeNull();
    expect(prevError(turns, 4)).toBe(3);
    expect(prevError(turns, 1)).toBeNull();
  });

  it('finds switches', () => {
    expect(nextSwitch(turns, 1)).toBe(4);
    expect(prevSwitch(turns, 4)).toBe(1);
    expect(nextSwitch(turns, 4)).toBeNull();
  });

  it('clamps a turn from the URL to the episode', () => {
    expect(clampTurn(null, 5)).toBe(0);
    expect(clampTurn(99, 5)).toBe(4);
    expect(clampTurn(3, 0)).toBe(0);
  });
});
