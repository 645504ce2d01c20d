/**
 * The step debugger's logic, free of React and timers so it can be tested turn by turn. A turn is described
 * by `TurnFacts` (error, switch, regret, what each compared policy would have chosen); breakpoints say which
 * facts stop the debugger. Playing advances one turn per tick and pauses on the first turn that hits a
 * breakpoint (or at the last turn); "continue" jumps straight to the next such turn.
 */

/** What the debugger knows of one turn. `regret` and `choices` are null until the estimator/replay answered. */
export interface TurnFacts {
  error: boolean;
  switched: boolean;
  /** max over candidates of ŝ − ŝ(logged model); null without estimates for this turn. */
  regret: number | null;
  /** The model the log chose. */
  logged: string;
  /** Policy spec → the model that policy picks here (absent: the policy was not replayed, or had no choice). */
  choices: Readonly<Record<string, string>>;
}

export type BreakKind = 'error' | 'switch' | 'regret' | 'disagree';

export interface Breakpoints {
  error: boolean;
  switch: boolean;
  regret: boolean;
  /** Regret above which the turn stops (in ŝ units, i.e. normalised score). */
  regretThreshold: number;
  disagree: boolean;
  /** The policy whose disagreement with the log stops the debugger. */
  policy: string;
}

export const DEFAULT_BREAKPOINTS: Breakpoints = {
  error: true,
  switch: false,
  regret: false,
  regretThreshold: 0.1,
  disagree: false,
  policy: 'argmax',
};

/** Which enabled breakpoints this turn hits, in a fixed order (the order the panel lists them). */
export function breakReasons(turn: TurnFacts, bp: Breakpoints): BreakKind[] {
  const out: BreakKind[] = [];
  if (bp.error && turn.error) out.push('error');
  if (bp.switch && turn.switched) out.push('switch');
  if (bp.regret && turn.regret !== null && turn.regret > bp.regretThreshold) out.push('regret');
  if (bp.disagree) {
    const choice = turn.choices[bp.policy];
    if (choice !== undefined && choice !== turn.logged) out.push('disagree');
  }
  return out;
}

export function anyBreakpoint(bp: Breakpoints): boolean {
  return bp.error || bp.switch || bp.regret || bp.disagree;
}

export interface BreakHit {
  turn: number;
  reasons: BreakKind[];
}

/** The nearest turn strictly after (`step` 1) or before (−1) `from` that hits a breakpoint, or null. */
export function seekBreak(turns: readonly TurnFacts[], from: number, bp: Breakpoints, step: 1 | -1 = 1): BreakHit | null {
  for (let i = from + step; i >= 0 && i < turns.length; i += step) {
    const turn = turns[i];
    if (!turn) continue;
    const reasons = breakReasons(turn, bp);
    if (reasons.length > 0) return { turn: i, reasons };
  }
  return null;
}

/** Every turn that hits a breakpoint (for markers on the timeline and a count in the panel). */
export function allBreaks(turns: readonly TurnFacts[], bp: Breakpoints): BreakHit[] {
  const out: BreakHit[] = [];
  turns.forEach((turn, i) => {
    const reasons = breakReasons(turn, bp);
    if (reasons.length > 0) out.push({ turn: i, reasons });
  });
  return out;
}

/** Why the debugger is where it is. */
export type Stop =
  | { kind: 'idle' }
  | { kind: 'playing' }
  | { kind: 'breakpoint'; turn: number; reasons: BreakKind[] }
  | { kind: 'end'; turn: number }
  /** "Continue" found no breakpoint ahead. */
  | { kind: 'none-ahead'; from: number };

export interface DebuggerState {
  stop: Stop;
}

export const IDLE: DebuggerState = { stop: { kind: 'idle' } };

export type DebuggerEvent =
  | { type: 'play' }
  | { type: 'pause' }
  /** One interval of playing: move one turn, then pause if that turn hits a breakpoint. */
  | { type: 'tick' }
  /** Jump to the next / previous turn that hits a breakpoint. */
  | { type: 'continue'; step: 1 | -1 }
  /** The user moved by hand (step, click, j/k): playing stops, the stop reason is forgotten. */
  | { type: 'moved' };

export interface Transition {
  state: DebuggerState;
  /** The turn to show next (the same turn when nothing moves). */
  turn: number;
}

/**
 * One step of the machine. `current` is the turn on screen; the result says what to show and why.
 * Playing from the last turn starts over at turn 0, as a media player does.
 */
export function advance(state: DebuggerState, event: DebuggerEvent, current: number, turns: readonly TurnFacts[], bp: Breakpoints): Transition {
  const last = turns.length - 1;
  switch (event.type) {
    case 'play':
      if (turns.length === 0) return { state, turn: current };
      return { state: { stop: { kind: 'playing' } }, turn: current >= last ? 0 : current };
    case 'pause':
      return { state: IDLE, turn: current };
    case 'moved':
      return { state: IDLE, turn: current };
    case 'tick': {
      if (state.stop.kind !== 'playing') return { state, turn: current };
      if (current >= last) return { state: { stop: { kind: 'end', turn: last } }, turn: last };
      const next = current + 1;
      const facts = turns[next];
      const reasons = facts ? breakReasons(facts, bp) : [];
      if (reasons.length > 0) return { state: { stop: { kind: 'breakpoint', turn: next, reasons } }, turn: next };
      if (next >= last) return { state: { stop: { kind: 'end', turn: next } }, turn: next };
      return { state, turn: next };
    }
    case 'continue': {
      const hit = seekBreak(turns, current, bp, event.step);
      if (!hit) return { state: { stop: { kind: 'none-ahead', from: current } }, turn: current };
      return { state: { stop: { kind: 'breakpoint', turn: hit.turn, reasons: hit.reasons } }, turn: hit.turn };
    }
  }
}

/** What `episodePolicyChoices` says of one turn, as far as the debugger needs it. */
export interface ChoicesTurn {
  t: number;
  regret: number | null;
  /** One model per asked policy, in `policies` order. */
  choices: readonly string[];
}

/**
 * The debugger's facts per turn, from the episode's turns (errors, switches: always known) and, when they
 * have arrived, the core's per-turn choices (regret; each policy's choice, keyed by its canonical spec).
 * Turns are matched by `t`; a turn the core did not describe has no regret and no choices.
 */
export function turnFacts(
  turns: readonly { t: number; model: string; switched: boolean; errors: readonly unknown[] }[],
  scores: { turns: readonly ChoicesTurn[] } | null,
  policy: { policies: readonly { policy: string }[]; turns: readonly ChoicesTurn[] } | null,
): TurnFacts[] {
  const regretAt = new Map(scores?.turns.map((c) => [c.t, c.regret]) ?? []);
  const choicesAt = new Map(policy?.turns.map((c) => [c.t, c.choices]) ?? []);
  const specs = policy?.policies.map((p) => p.policy) ?? [];
  return turns.map((turn) => {
    const picked = choicesAt.get(turn.t) ?? [];
    const choices: Record<string, string> = {};
    specs.forEach((spec, k) => {
      const model = picked[k];
      if (model !== undefined) choices[spec] = model;
    });
    return { error: turn.errors.length > 0, switched: turn.switched, regret: regretAt.get(turn.t) ?? null, logged: turn.model, choices };
  });
}

/** Play speeds offered, in turns per second (the interval is 1000 / speed ms). */
export const PLAY_SPEEDS = [1, 2, 4, 8] as const;
export type PlaySpeed = (typeof PLAY_SPEEDS)[number];
