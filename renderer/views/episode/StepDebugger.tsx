/**
 * The step debugger: a column beside the turn detail that plays through an episode's turns and stops at
 * breakpoints — an error, a model switch, regret above a threshold (the logged model's ŝ well below the best
 * candidate's), or a turn where a chosen policy would have picked another model than the log did. Below the
 * controls it shows the current turn's candidates with their ŝ. The logic is stepDebugger.ts; this file
 * holds the timer, the keys (p play/pause, c / C next / previous breakpoint) and the drawing.
 */
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { TURN_PAGE, type EpisodeDetail, type TurnDetail } from '../../../shared/api.ts';
import { plural } from '../../format/numbers.ts';
import { useAppStore, useOnStore } from '../../store/index.ts';
import { checkPolicySpec, POLICY_PRESETS } from '../policy/policyForm.ts';
import { usePolicyLab } from '../policy/policyLabStore.ts';
import {
  advance,
  allBreaks,
  DEFAULT_BREAKPOINTS,
  IDLE,
  PLAY_SPEEDS,
  turnFacts,
  type BreakKind,
  type Breakpoints,
  type DebuggerEvent,
  type DebuggerState,
  type PlaySpeed,
} from './stepDebugger.ts';
import { StepDebuggerScores } from './StepDebuggerScores.tsx';
import { useEpisodeChoices } from './useEpisodeChoices.ts';
import { INSPECTOR_PANEL_KEYS, keyAction } from '../../shortcuts.ts';
import { typingInto } from './useTurnKeys.ts';
import type { TurnLine } from './useEpisodeTurns.ts';
import './stepDebugger.css';

/** Kept across episodes for the session: a user debugging a run sets breakpoints once. */
let rememberedBreakpoints: Breakpoints = DEFAULT_BREAKPOINTS;
let rememberedPolicy = DEFAULT_BREAKPOINTS.policy;
let rememberedSpeed: PlaySpeed = 2;

const NO_POLICIES: readonly string[] = [];

const REASON: Record<BreakKind, string> = {
  error: 'error',
  switch: 'model switch',
  regret: 'regret above threshold',
  disagree: 'policy disagrees',
};

const Glyph = ({ d }: { d: string }) => (
  <svg width="14" height="14" viewBox="0 0 24 24" fill="currentColor" aria-hidden="true">
    <path d={d} />
  </svg>
);
const PLAY = 'M7 4.5v15l12.5-7.5z';
const PAUSE = 'M6 4.5h4v15H6zM14 4.5h4v15h-4z';
const STEP_BACK = 'M6 5h2.5v14H6zM19 5v14L9.5 12z';
const STEP_FWD = 'M15.5 5H18v14h-2.5zM5 5v14l9.5-7z';
const NEXT_BP = 'M3 5v14l7.5-7zM11 5v14l7.5-7zM19 5h2v14h-2z';
const PREV_BP = 'M21 5v14l-7.5-7zM13 5v14l-7.5-7zM3 5h2v14H3z';

/** `open` is the inspector's (its layout remembers it across reloads); hiding pauses a playing debugger. */
const STORE_NOTE = 'ŝ, regret and what a policy would choose are not read from a ClickHouse store in the window yet (routelens replay --store reads its scorings): open a SQLite database (routelens serve --db FILE) for them.';

export function StepDebugger({
  detail,
  lines,
  selected,
  current,
  onGo,
  open,
  onOpenChange,
}: {
  detail: EpisodeDetail;
  /** Every turn, light (useEpisodeTurns); `selected` the current one in full, null while its page is on its way. */
  lines: readonly TurnLine[];
  selected: TurnDetail | null;
  current: number;
  onGo(t: number): void;
  open: boolean;
  onOpenChange(open: boolean): void;
}) {
  const models = useAppStore((s) => s.models);
  const dataVersion = useAppStore((s) => s.dataVersion);
  const [bp, setBp] = useState<Breakpoints>(rememberedBreakpoints);
  const [policyDraft, setPolicyDraft] = useState(rememberedPolicy);
  const [speed, setSpeed] = useState<PlaySpeed>(rememberedSpeed);
  const [machine, setMachine] = useState<DebuggerState>(IDLE);
  const ids = useId();
  const episodeId = detail.episode.id;

  useEffect(() => {
    rememberedBreakpoints = bp;
    rememberedPolicy = policyDraft;
    rememberedSpeed = speed;
  }, [bp, policyDraft, speed]);

  // The policy lab's chosen policies first, then the presets: debugging what was just replayed is the common case.
  const labPolicies = usePolicyLab((s) => s.policies);
  const suggestions = [...new Set([...labPolicies, ...POLICY_PRESETS.map((p) => p.spec)])].filter((p) => p !== 'logged');
  const check = checkPolicySpec(policyDraft, models.map((m) => m.name));
  // A ClickHouse store holds no ŝ and replays nothing yet: the debugger stops on errors and switches only.
  const onStore = useOnStore();
  // A long episode (read a page at a time) is asked about the page shown: its choices for every turn were hundreds of MB.
  const pageFrom = detail.outline ? Math.floor(current / TURN_PAGE) * TURN_PAGE : null;
  const page = useMemo(() => (pageFrom === null ? undefined : { from: pageFrom, count: TURN_PAGE }), [pageFrom]);
  const scores = useEpisodeChoices(episodeId, open && !onStore ? NO_POLICIES : null, dataVersion, page);
  // A policy that chooses by ŝ is not asked about an episode without any ŝ (the core would refuse it).
  const unscorable = check.ok && check.needsScores && scores.status === 'ready' && scores.value.s_hat_source === 'none';
  const spec = check.ok && !unscorable ? check.spec : null;
  const policyList = useMemo(() => (spec === null ? null : [spec]), [spec]);
  const policyLoad = useEpisodeChoices(episodeId, open && scores.status === 'ready' ? policyList : null, dataVersion, page);

  // Keyed on the answers, not their load objects (a new one each render): the facts are a pass over every turn.
  const scored = scores.status === 'ready' ? scores.value : null;
  const chosen = policyLoad.status === 'ready' ? policyLoad.value : null;
  const facts = useMemo(() => turnFacts(lines, scored, chosen), [lines, scored, chosen]);
  const active: Breakpoints = useMemo(() => ({ ...bp, policy: spec ?? '', disagree: bp.disagree && spec !== null }), [bp, spec]);
  // Two passes over the turns when the breakpoints or the facts change, not on every step: an episode can have a
  // million turns.
  const { hits, counts } = useMemo(() => {
    const counts = { error: 0, switch: 0, regret: 0, disagree: 0 };
    for (const h of allBreaks(facts, { ...active, error: true, switch: true, regret: true, disagree: spec !== null })) {
      for (const r of h.reasons) counts[r]++;
    }
    return { hits: allBreaks(facts, active), counts };
  }, [facts, active, spec]);

  // Everything the timer and the keys read, current as of the last render.
  const live = useRef({ machine, current, facts, active, onGo });
  live.current = { machine, current, facts, active, onGo };
  /** The turn the debugger itself last moved to; any other move is the user's and stops playing. */
  const expected = useRef<number | null>(null);

  const dispatch = (event: DebuggerEvent) => {
    const s = live.current;
    const next = advance(s.machine, event, s.current, s.facts, s.active);
    live.current = { ...s, machine: next.state, current: next.turn };
    setMachine(next.state);
    if (next.turn !== s.current) {
      expected.current = next.turn;
      s.onGo(next.turn);
    }
  };

  const playing = machine.stop.kind === 'playing';
  useEffect(() => {
    if (!playing) return;
    const timer = setInterval(() => dispatch({ type: 'tick' }), 1000 / speed);
    return () => clearInterval(timer);
    // dispatch reads live.current, so the interval only restarts on play/pause and speed changes.
  }, [playing, speed]);

  useEffect(() => {
    const mine = expected.current === current;
    expected.current = null;
    if (!mine && live.current.machine.stop.kind !== 'idle') dispatch({ type: 'moved' });
  }, [current]);

  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || typingInto(e.target)) return;
      const action = keyAction(INSPECTOR_PANEL_KEYS, e);
      if (action === 'play') dispatch({ type: live.current.machine.stop.kind === 'playing' ? 'pause' : 'play' });
      else if (action === 'nextBreak') dispatch({ type: 'continue', step: 1 });
      else if (action === 'prevBreak') dispatch({ type: 'continue', step: -1 });
      else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [open]);

  // Hidden, it keeps its breakpoints for when it is opened again (the inspector's button or `d`).
  if (!open) return null;

  const stop = machine.stop;
  const status =
    stop.kind === 'playing'
      ? `Playing at ${plural(speed, 'turn')}/s…`
      : stop.kind === 'breakpoint'
        ? `Stopped at turn ${lines[stop.turn]?.t ?? stop.turn}: ${stop.reasons.map((r) => REASON[r]).join(', ')}.`
        : stop.kind === 'end'
          ? 'Reached the last turn.'
          : stop.kind === 'none-ahead'
            ? 'No breakpoint in that direction.'
            : hits.length === 0
              ? 'No turn hits the breakpoints set.'
              : `${plural(hits.length, 'turn')} hit a breakpoint.`;
  const noScores = onStore || (scores.status === 'ready' && scores.value.s_hat_source === 'none');
  const setPart = (patch: Partial<Breakpoints>) => setBp((b) => ({ ...b, ...patch }));

  return (
    <aside className="step-debugger" data-testid="step-debugger" data-open="true" data-stop={stop.kind} aria-label="Step debugger">
      <header className="dbg-head">
        <h3>Step debugger</h3>
        <button type="button" className="btn btn-ghost dbg-collapse" onClick={() => {
            if (playing) dispatch({ type: 'pause' });
            onOpenChange(false);
          }}
          title="Hide the step debugger" data-testid="debugger-close">
          Hide
        </button>
      </header>
      <div className="dbg-controls" role="toolbar" aria-label="Debugger controls">
        <button type="button" className="btn btn-icon" title="Previous breakpoint (Shift+C)" aria-label="Previous breakpoint" onClick={() => dispatch({ type: 'continue', step: -1 })} data-testid="debugger-prev-break">
          <Glyph d={PREV_BP} />
        </button>
        <button type="button" className="btn btn-icon" title="Step back (k)" aria-label="Step back" disabled={current === 0} onClick={() => onGo(current - 1)} data-testid="debugger-step-back">
          <Glyph d={STEP_BACK} />
        </button>
        <button
          type="button"
          className="btn btn-primary dbg-play"
          title={playing ? 'Pause (p)' : 'Play until a breakpoint (p)'}
          onClick={() => dispatch({ type: playing ? 'pause' : 'play' })}
          data-testid="debugger-play"
          aria-pressed={playing}
        >
          <Glyph d={playing ? PAUSE : PLAY} />
          {playing ? 'Pause' : 'Play'} <kbd>p</kbd>
        </button>
        <button type="button" className="btn btn-icon" title="Step forward (j)" aria-label="Step forward" disabled={current >= lines.length - 1} onClick={() => onGo(current + 1)} data-testid="debugger-step">
          <Glyph d={STEP_FWD} />
        </button>
        <button type="button" className="btn btn-icon" title="Next breakpoint (c)" aria-label="Next breakpoint" onClick={() => dispatch({ type: 'continue', step: 1 })} data-testid="debugger-next-break">
          <Glyph d={NEXT_BP} />
        </button>
        <select className="dbg-speed" value={speed} onChange={(e) => setSpeed(Number(e.target.value) as PlaySpeed)} aria-label="Play speed" title="Turns per second while playing">
          {PLAY_SPEEDS.map((s) => (
            <option key={s} value={s}>
              {s}×
            </option>
          ))}
        </select>
      </div>
      <p className="dbg-keys faint">
        <kbd>p</kbd> play · <kbd>c</kbd>/<kbd>C</kbd> next/previous break · <kbd>j</kbd>/<kbd>k</kbd> step
      </p>
      <p className={stop.kind === 'breakpoint' ? 'dbg-status is-break' : 'dbg-status'} data-testid="debugger-status" aria-live="polite">
        {status}
      </p>
      <fieldset className="dbg-breakpoints">
        <legend>Break on</legend>
        <label>
          <input type="checkbox" checked={bp.error} onChange={(e) => setPart({ error: e.target.checked })} data-testid="bp-error" />
          an error <span className="faint num">{counts.error}</span>
        </label>
        <label>
          <input type="checkbox" checked={bp.switch} onChange={(e) => setPart({ switch: e.target.checked })} data-testid="bp-switch" />
          a model switch <span className="faint num">{counts.switch}</span>
        </label>
        <label className={noScores ? 'is-unavailable' : undefined} title={noScores ? 'Needs ŝ: no estimator has scored this episode and the log has no router scores' : undefined}>
          <input type="checkbox" checked={bp.regret} onChange={(e) => setPart({ regret: e.target.checked })} data-testid="bp-regret" />
          <span title="Best candidate's ŝ minus the logged model's ŝ, in normalised score">regret &gt;</span>
          <input
            type="number"
            className="dbg-threshold"
            min={0}
            max={1}
            step={0.01}
            value={bp.regretThreshold}
            onChange={(e) => {
              const v = Number(e.target.value);
              if (Number.isFinite(v)) setPart({ regretThreshold: v });
            }}
            aria-label="Regret threshold (in ŝ)"
            data-testid="bp-regret-threshold"
          />
          <span className="faint num">{noScores ? 'no ŝ' : counts.regret}</span>
        </label>
        <div className="dbg-policy-row">
          <label>
            <input type="checkbox" checked={bp.disagree} onChange={(e) => setPart({ disagree: e.target.checked })} data-testid="bp-disagree" />
            policy
          </label>
          <input
            type="text"
            className={check.ok ? 'mono dbg-policy' : 'mono dbg-policy is-invalid'}
            value={policyDraft}
            onChange={(e) => setPolicyDraft(e.target.value)}
            list={`${ids}-presets`}
            aria-label="Policy whose disagreement with the log stops the debugger"
            aria-invalid={!check.ok}
            spellCheck={false}
            data-testid="bp-policy"
          />
          <datalist id={`${ids}-presets`}>
            {suggestions.map((p) => (
              <option key={p} value={p} />
            ))}
          </datalist>
          <span className="faint">disagrees</span>
          <span className="faint num">{policyLoad.status === 'ready' ? counts.disagree : policyLoad.status === 'loading' ? '…' : ''}</span>
        </div>
        {page && (
          <p className="faint dbg-window" data-testid="debugger-window">
            Regret and policy read turns {lines[page.from]?.t ?? page.from}–{lines[Math.min(lines.length, page.from + page.count) - 1]?.t ?? ''}, the page
            shown of {plural(lines.length, 'turn')}; errors and switches read every turn.
          </p>
        )}
        {!check.ok && <p className="dbg-error">{check.message}</p>}
        {policyLoad.status === 'error' && <p className="dbg-error">{policyLoad.message}</p>}
        {unscorable && (
          <p className="faint" data-testid="bp-policy-unscorable">
            {check.spec} chooses by ŝ, which this episode lacks: pick cheapest, fixed:MODEL or random:SEED, or score it first.
          </p>
        )}
      </fieldset>
      {hits.length > 0 && (
        <p className="dbg-hits faint" data-testid="debugger-hits">
          Breaks at turn{hits.length > 1 ? 's' : ''}{' '}
          {hits.slice(0, 12).map((h, i) => (
            <span key={h.turn}>
              {i > 0 && ', '}
              <button type="button" className="btn-link" onClick={() => onGo(h.turn)} title={h.reasons.map((r) => REASON[r]).join(', ')}>
                {lines[h.turn]?.t ?? h.turn}
              </button>
            </span>
          ))}
          {hits.length > 12 && ` and ${hits.length - 12} more`}
        </p>
      )}
      {onStore ? (
        <p className="faint" data-testid="debugger-store-note">{STORE_NOTE}</p>
      ) : (
        <StepDebuggerScores
          turn={selected}
          taskType={detail.episode.task_type}
          load={scores}
          policyLoad={policyLoad}
          policy={spec}
        />
      )}
    </aside>
  );
}
