/**
 * The outcome explained, in the episode header (issue 35 item 2): what counted as right, what the agent answered,
 * who scored it and why, and a harness's tests — as the log gives them (shared/canonical.ts OutcomeExplanation).
 *
 * - OutcomeToggle: the outcome badge as a button that opens and closes the panel (the flag is the session's,
 *   outcomeOpen.ts, so the Episodes list's outcome cell opens it too).
 * - OutcomeSummary: one line of target, answer and verdicts, for the full header.
 * - OutcomePanel: everything, each text as text (logs are untrusted), what the log lacks shown as "—".
 */
import type { ReactNode } from 'react';
import type { EpisodeDetail } from '../../../shared/api.ts';
import type { OutcomeExplanation, OutcomeScorer, OutcomeTests } from '../../../shared/canonical.ts';
import { OutcomeBadge } from '../../components/figures.tsx';
import { ChevronDownIcon } from '../../components/icons.tsx';
import { formatCount, formatUnit, plural } from '../../format/numbers.ts';
import { useOutcomeOpen } from './outcomeOpen.ts';
import {
  choiceIndex, choiceLetter, explains, firstLine, looksLikePatch, targetsOf, testsLine, valueGloss, valueText, valueTone,
} from './outcomeText.ts';
import './outcome.css';

const PANEL_ID = 'episode-outcome-panel';
/** Tests listed per group before "and N more": a PASS_TO_PASS group can name thousands. */
const TESTS_SHOWN = 200;

type Episode = EpisodeDetail['episode'];

export function OutcomeToggle({ episode }: { episode: Episode }) {
  const { open, setOpen } = useOutcomeOpen();
  return (
    <button
      type="button"
      className="outcome-toggle"
      onClick={() => setOpen(!open)}
      aria-expanded={open}
      aria-controls={PANEL_ID}
      title={open ? 'Hide what explains the outcome' : 'What explains the outcome: target, answer, scorers and their explanations, tests'}
      data-testid="outcome-toggle"
    >
      <OutcomeBadge success={episode.success} score={episode.final_score} />
      <span className={open ? 'chevron is-up' : 'chevron'}>
        <ChevronDownIcon />
      </span>
    </button>
  );
}

/** The value of a scorer, with Inspect's letter grades glossed and a pass or fail coloured. */
function ScorerValue({ value }: { value: OutcomeScorer['value'] }) {
  const gloss = valueGloss(value);
  const tone = valueTone(value);
  return (
    <span className={tone ? `outcome-value is-${tone}` : 'outcome-value'} data-testid="outcome-scorer-value">
      <span className="mono">{valueText(value)}</span>
      {gloss && <span className="faint"> ({gloss})</span>}
    </span>
  );
}

/** One line: target, answer, each scorer's value, the tests; a reader sees why before opening the panel. */
export function OutcomeSummary({ episode }: { episode: Episode }) {
  const outcome = episode.outcome;
  if (outcome === null || !explains(outcome)) return null;
  const targets = targetsOf(outcome);
  const items: { label: string; text: ReactNode; title?: string; testId: string }[] = [];
  items.push({
    label: 'Target',
    text: targets.length ? targets.map((t) => firstLine(t, 60)).join(' | ') : '—',
    title: targets.length ? undefined : 'The log gives no target',
    testId: 'outcome-summary-target',
  });
  items.push({
    label: 'Answer',
    text: outcome.answer != null ? firstLine(outcome.answer, 80) : '—',
    title: outcome.answer != null ? undefined : 'The log gives no final answer',
    testId: 'outcome-summary-answer',
  });
  for (const [i, s] of (outcome.scorers ?? []).slice(0, 3).entries()) {
    items.push({ label: s.name, text: <ScorerValue value={s.value} />, testId: `outcome-summary-scorer-${i}` });
  }
  if (outcome.tests?.length) items.push({ label: 'Tests', text: outcome.tests.map(testsLine).join(', '), testId: 'outcome-summary-tests' });
  if (outcome.notes?.length) items.push({ label: 'Note', text: firstLine(outcome.notes[0] ?? '', 90), testId: 'outcome-summary-note' });
  return (
    <dl className="outcome-summary" data-testid="outcome-summary">
      {items.map((item) => (
        <div key={item.testId} title={item.title}>
          <dt>{item.label}</dt>
          <dd data-testid={item.testId}>{item.text}</dd>
        </div>
      ))}
    </dl>
  );
}

/** A text from the log, whole, in a box that scrolls past a few lines; the empty text says so. */
function LoggedText({ text, testId }: { text: string; testId: string }) {
  if (text === '') {
    return (
      <span className="faint" data-testid={testId} data-empty="true" title="The log holds an empty text here">
        (empty)
      </span>
    );
  }
  return (
    <pre className={looksLikePatch(text) ? 'outcome-text is-code' : 'outcome-text'} data-testid={testId}>
      {text}
    </pre>
  );
}

function Row({ label, children, testId, inline = false }: { label: string; children: ReactNode; testId?: string; inline?: boolean }) {
  return (
    <div className={inline ? 'outcome-row is-inline' : 'outcome-row'} data-testid={testId}>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

const unknown = (what: string) => (
  <span className="faint" title={`The log gives no ${what}`}>
    —
  </span>
);

/** The options of a multiple-choice task, lettered, with the target's and the scorers' one-letter answers marked. */
function Choices({ outcome }: { outcome: OutcomeExplanation }) {
  const choices = outcome.choices ?? [];
  const targets = new Set(targetsOf(outcome).map((t) => choiceIndex(t, choices.length)));
  const answered = new Set((outcome.scorers ?? []).map((s) => choiceIndex(s.answer, choices.length)));
  return (
    <ol className="outcome-choices" data-testid="outcome-choices">
      {choices.map((c, i) => (
        <li key={i}>
          <span className="mono outcome-letter">{choiceLetter(i)}</span> <span className="outcome-choice-text">{c}</span>
          {targets.has(i) && <span className="tag tag-target">target</span>}
          {answered.has(i) && <span className="tag">answered</span>}
        </li>
      ))}
    </ol>
  );
}

function MetadataValue({ value }: { value: unknown }) {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return <pre className="outcome-text outcome-meta-value">{text}</pre>;
}

/** A metadata value short enough for one line beside others (a confidence, a method, a yes or no). */
const isShort = (value: unknown): boolean =>
  value === null || typeof value === 'number' || typeof value === 'boolean' || (typeof value === 'string' && value.length <= 60 && !value.includes('\n'));

function Scorer({ scorer }: { scorer: OutcomeScorer }) {
  const entries = Object.entries(scorer.metadata ?? {});
  const short = entries.filter(([, v]) => isShort(v));
  const metadata = entries.filter(([, v]) => !isShort(v));
  return (
    <li className="outcome-scorer" data-testid="outcome-scorer" data-scorer={scorer.name}>
      <div className="outcome-scorer-head">
        <span className="outcome-scorer-name">{scorer.name}</span>
        <ScorerValue value={scorer.value} />
        {scorer.source && (
          <span className="faint mono outcome-source" title="Where the log holds this verdict">
            {scorer.source}
          </span>
        )}
      </div>
      <dl className="outcome-scorer-facts">
        {scorer.answer != null && (
          <Row label="Answer read">
            <LoggedText text={scorer.answer} testId="outcome-scorer-answer" />
          </Row>
        )}
        <Row label="Explanation">
          {scorer.explanation != null ? <LoggedText text={scorer.explanation} testId="outcome-scorer-explanation" /> : unknown('explanation')}
        </Row>
        {short.length > 0 && (
          <Row label="Also logged">
            <span className="outcome-meta-line" data-testid="outcome-scorer-metadata">
              {short.map(([key, value]) => (
                <span key={key}>
                  <span className="faint">{key}</span> <span className="mono">{value === null ? 'null' : String(value)}</span>
                </span>
              ))}
            </span>
          </Row>
        )}
        {metadata.map(([key, value]) => (
          <Row key={key} label={key}>
            <MetadataValue value={value} />
          </Row>
        ))}
      </dl>
    </li>
  );
}

function TestList({ names, failed }: { names: string[]; failed: boolean }) {
  return (
    <>
      {names.slice(0, TESTS_SHOWN).map((name, i) => (
        <li key={`${failed ? 'f' : 'p'}${i}`} className={failed ? 'is-failed' : 'is-passed'}>
          <span aria-hidden="true">{failed ? '✗' : '✓'}</span> <span className="mono">{name}</span>
        </li>
      ))}
      {names.length > TESTS_SHOWN && <li className="faint">and {formatCount(names.length - TESTS_SHOWN)} more {failed ? 'failed' : 'passed'}</li>}
    </>
  );
}

function TestGroup({ group }: { group: OutcomeTests }) {
  const total = group.passed.length + group.failed.length;
  return (
    <details className="outcome-tests-group" data-testid="outcome-tests-group" data-group={group.group}>
      <summary>
        <span className="mono">{group.group}</span>{' '}
        <span>{total === 0 ? 'no tests' : `${formatCount(group.passed.length)} of ${plural(total, 'test')} passed`}</span>
        {group.failed.length > 0 && <span className="outcome-value is-bad"> · {formatCount(group.failed.length)} failed</span>}
      </summary>
      {total > 0 && (
        <ul className="outcome-test-list">
          <TestList names={group.failed} failed />
          <TestList names={group.passed} failed={false} />
        </ul>
      )}
    </details>
  );
}

function Verdict({ episode }: { episode: Episode }) {
  return (
    <Row label="Verdict" testId="outcome-verdict" inline>
      <OutcomeBadge success={episode.success} score={episode.final_score} />
      <span className="faint"> normalised {formatUnit(episode.score_norm)}</span>
      {episode.exit_reason && <span className="tag outcome-exit">{episode.exit_reason}</span>}
    </Row>
  );
}

function Explained({ episode, outcome }: { episode: Episode; outcome: OutcomeExplanation }) {
  const targets = targetsOf(outcome);
  return (
    <dl className="outcome-facts">
      <Verdict episode={episode} />
      <Row label={targets.length > 1 ? 'Targets' : 'Target'} testId="outcome-target">
        {targets.length === 0
          ? unknown('target')
          : targets.map((t, i) => <LoggedText key={i} text={t} testId="outcome-target-text" />)}
      </Row>
      {outcome.choices?.length ? (
        <Row label="Choices">
          <Choices outcome={outcome} />
        </Row>
      ) : null}
      <Row label="Answer" testId="outcome-answer">
        {outcome.answer != null ? <LoggedText text={outcome.answer} testId="outcome-answer-text" /> : unknown('final answer')}
      </Row>
      <Row label={outcome.scorers && outcome.scorers.length > 1 ? 'Scorers' : 'Scorer'} testId="outcome-scorers">
        {outcome.scorers?.length ? (
          <ul className="outcome-scorers">
            {outcome.scorers.map((s, i) => (
              <Scorer key={i} scorer={s} />
            ))}
          </ul>
        ) : (
          unknown('scorer or judge')
        )}
      </Row>
      {outcome.tests?.length ? (
        <Row label="Tests" testId="outcome-tests">
          {outcome.tests.map((g, i) => (
            <TestGroup key={i} group={g} />
          ))}
        </Row>
      ) : null}
      {outcome.notes?.length ? (
        <Row label="Notes" testId="outcome-notes">
          <ul className="outcome-notes">
            {outcome.notes.map((n, i) => (
              <li key={i}>{n}</li>
            ))}
          </ul>
        </Row>
      ) : null}
    </dl>
  );
}

export function OutcomePanel({ episode }: { episode: Episode }) {
  const open = useOutcomeOpen((s) => s.open);
  if (!open) return null;
  const outcome = episode.outcome;
  return (
    <section id={PANEL_ID} className="outcome-panel" aria-label="What explains the outcome" data-testid="outcome-panel">
      {outcome !== null && explains(outcome) ? (
        <Explained episode={episode} outcome={outcome} />
      ) : (
        <>
          <dl className="outcome-facts">
            <Verdict episode={episode} />
          </dl>
          {outcome === null ? (
            <p className="faint" data-testid="outcome-not-recorded">
              What explains it is not recorded: this episode was imported before RouteLens kept the target, answer and scorers. Import its log into a new
              database to see them.
            </p>
          ) : (
            <p className="faint" data-testid="outcome-nothing-more">
              The log gives nothing more about this outcome: no target, answer, scorer or tests.
            </p>
          )}
        </>
      )}
    </section>
  );
}
