import { describe, expect, it } from 'vitest';
import {
  advance,
  allBreaks,
  breakReasons,
  DEFAULT_BREAKPOINTS,
  IDLE,
  turnFacts,
  seekBreak,
  type Breakpoints,
  type DebuggerState,
  type TurnFacts,
} from './stepDebugger.ts';

/**
 * Eight turns of a made-up episode: errors at 2 and 6, a switch at 4, regret 0.25 at 3 and 0.05 at 5,
 * and argmax disagreeing with the log at 5 (cheapest never replayed past turn 3).
 */
const T = (over: Partial<TurnFacts> = {}): TurnFacts => ({ error: false, switched: false, regret: 0, logged: 'a', choices: { argmax: 'a' }, ...over });
const TURNS: TurnFacts[] = [
  T(),
  T(),
  T({ error: true }),
  T({ regret: 0.25, choices: { argmax: 'a', cheapest: 'c' } }),
  T({ switched: true, logged: 'b', choices: { argmax: 'b' } }),
  T({ regret: 0.05, choices: { argmax: 'b' } }),
  T({ error: true, regret: null, choices: {} }),
  T(),
];

const only = (patch: Partial<Breakpoints>): Breakpoints => ({
  ...DEFAULT_BREAKPOINTS,
  error: false,
  switch: false,
  regret: false,
  disagree: false,
  ...patch,
});

describe('breakpoints', () => {
  it('each kind stops where its fact holds', () => {
    expect(allBreaks(TURNS, only({ error: true })).map((b) => b.turn)).toEqual([2, 6]);
    expect(allBreaks(TURNS, only({ switch: true })).map((b) => b.turn)).toEqual([4]);
    expect(allBreaks(TURNS, only({ regret: true, regretThreshold: 0.1 })).map((b) => b.turn)).toEqual([3]);
    expect(allBreaks(TURNS, only({ regret: true, regretThreshold: 0.01 })).map((b) => b.turn)).toEqual([3, 5]);
    // A turn without estimates (regret null) never stops on regret.
    expect(allBreaks(TURNS, only({ regret: true, regretThreshold: -1 })).map((b) => b.turn)).toEqual([0, 1, 2, 3, 4, 5, 7]);
    expect(allBreaks(TURNS, only({ disagree: true, policy: 'argmax' })).map((b) => b.turn)).toEqual([5]);
    expect(allBreaks(TURNS, only({ disagree: true, policy: 'cheapest' })).map((b) => b.turn)).toEqual([3]);
    expect(allBreaks(TURNS, only({ disagree: true, policy: 'random:1' }))).toEqual([]);
  });

  it('the threshold is strict and a turn lists every reason it hits', () => {
    expect(breakReasons(TURNS[3] as TurnFacts, only({ regret: true, regretThreshold: 0.25 }))).toEqual([]);
    const all: Breakpoints = { error: true, switch: true, regret: true, regretThreshold: 0, disagree: true, policy: 'argmax' };
    expect(breakReasons(T({ error: true, switched: true, regret: 0.3, choices: { argmax: 'z' } }), all)).toEqual([
      'error',
      'switch',
      'regret',
      'disagree',
    ]);
  });

  it('seeks forward and backward from a turn, never returning the turn itself', () => {
    const bp = only({ error: true, switch: true });
    expect(seekBreak(TURNS, 0, bp)).toEqual({ turn: 2, reasons: ['error'] });
    expect(seekBreak(TURNS, 2, bp)).toEqual({ turn: 4, reasons: ['switch'] });
    expect(seekBreak(TURNS, 6, bp)).toBeNull();
    expect(seekBreak(TURNS, 6, bp, -1)).toEqual({ turn: 4, reasons: ['switch'] });
    expect(seekBreak(TURNS, 2, bp, -1)).toBeNull();
  });
});

describe('playing', () => {
  /** Plays from `from` until the machine leaves 'playing'; returns the turns shown, tick by tick. */
  function play(from: number, bp: Breakpoints): { shown: number[]; state: DebuggerState } {
    let { state, turn } = advance(IDLE, { type: 'play' }, from, TURNS, bp);
    const shown = [turn];
    for (let i = 0; i < 100 && state.stop.kind === 'playing'; i++) {
      ({ state, turn } = advance(state, { type: 'tick' }, turn, TURNS, bp));
      shown.push(turn);
    }
    return { shown, state };
  }

  it('advances one turn per tick and pauses on the next error', () => {
    const { shown, state } = play(0, only({ error: true }));
    expect(shown).toEqual([0, 1, 2]);
    expect(state.stop).toEqual({ kind: 'breakpoint', turn: 2, reasons: ['error'] });
    // Playing again from a breakpoint moves past it to the next one.
    let next = advance(state, { type: 'play' }, 2, TURNS, only({ error: true }));
    expect(next.turn).toBe(2);
    for (let i = 0; i < 10 && next.state.stop.kind === 'playing'; i++) next = advance(next.state, { type: 'tick' }, next.turn, TURNS, only({ error: true }));
    expect(next.state.stop).toEqual({ kind: 'breakpoint', turn: 6, reasons: ['error'] });
  });

  it('runs to the end when nothing breaks, and starts over when played at the end', () => {
    const { shown, state } = play(4, only({}));
    expect(shown).toEqual([4, 5, 6, 7]);
    expect(state.stop).toEqual({ kind: 'end', turn: 7 });
    expect(advance(state, { type: 'play' }, 7, TURNS, only({})).turn).toBe(0);
  });

  it('pause, a move by hand and ticks while paused stop or do nothing', () => {
    const playing = advance(IDLE, { type: 'play' }, 0, TURNS, DEFAULT_BREAKPOINTS).state;
    expect(advance(playing, { type: 'pause' }, 1, TURNS, DEFAULT_BREAKPOINTS)).toEqual({ state: IDLE, turn: 1 });
    expect(advance(playing, { type: 'moved' }, 5, TURNS, DEFAULT_BREAKPOINTS)).toEqual({ state: IDLE, turn: 5 });
    expect(advance(IDLE, { type: 'tick' }, 3, TURNS, DEFAULT_BREAKPOINTS)).toEqual({ state: IDLE, turn: 3 });
  });

  it('continue jumps to the next breakpoint or says there is none', () => {
    const bp = only({ regret: true, regretThreshold: 0.1, disagree: true, policy: 'argmax' });
    const first = advance(IDLE, { type: 'continue', step: 1 }, 0, TURNS, bp);
    expect(first).toEqual({ state: { stop: { kind: 'breakpoint', turn: 3, reasons: ['regret'] } }, turn: 3 });
    const second = advance(first.state, { type: 'continue', step: 1 }, 3, TURNS, bp);
    expect(second.turn).toBe(5);
    expect(second.state.stop).toEqual({ kind: 'breakpoint', turn: 5, reasons: ['disagree'] });
    const none = advance(second.state, { type: 'continue', step: 1 }, 5, TURNS, bp);
    expect(none).toEqual({ state: { stop: { kind: 'none-ahead', from: 5 } }, turn: 5 });
    expect(advance(none.state, { type: 'continue', step: -1 }, 5, TURNS, bp).turn).toBe(3);
  });
});

describe('turnFacts', () => {
  it('joins the episode’s turns with the core’s regrets and one policy’s choices, by t', () => {
    const turns = [
      { t: 0, model: 'a', switched: false, errors: [] },
      { t: 1, model: 'b', switched: true, errors: [{}] },
      { t: 2, model: 'b', switched: false, errors: [] },
    ];
    const scores = { turns: [{ t: 0, regret: 0.2, choices: [] }, { t: 1, regret: null, choices: [] }] };
    const policy = { policies: [{ policy: 'cost-aware:5' }], turns: [{ t: 1, regret: null, choices: ['c'] }, { t: 2, regret: 0, choices: ['b'] }] };
    expect(turnFacts(turns, scores, policy)).toEqual([
      { error: false, switched: false, regret: 0.2, logged: 'a', choices: {} },
      { error: true, switched: true, regret: null, logged: 'b', choices: { 'cost-aware:5': 'c' } },
      { error: false, switched: false, regret: null, logged: 'b', choices: { 'cost-aware:5': 'b' } },
    ]);
    // Before the core answers, errors and switches already work.
    expect(allBreaks(turnFacts(turns, null, null), { ...DEFAULT_BREAKPOINTS, switch: true }).map((b) => b.turn)).toEqual([1]);
  });
});
