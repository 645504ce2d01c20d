/**
 * How the outcome panel words what a log says of an outcome (shared/canonical.ts OutcomeExplanation): values as
 * logged, with Inspect's letter grades glossed, and the letters of a multiple-choice task matched to its options.
 * Nothing here judges an answer: it only reads what the scorers said.
 */
import type { OutcomeExplanation, OutcomeScorer, OutcomeTests } from '../../../shared/canonical.ts';
import { formatScore } from '../../format/numbers.ts';

/** Inspect's letter grades (CORRECT, INCORRECT, PARTIAL, NOANSWER), as its value_to_float reads them. */
const INSPECT_GRADES: Record<string, { gloss: string; tone: Tone }> = {
  C: { gloss: 'correct', tone: 'good' },
  I: { gloss: 'incorrect', tone: 'bad' },
  P: { gloss: 'partially correct', tone: null },
  N: { gloss: 'no answer', tone: 'bad' },
};

export type Tone = 'good' | 'bad' | null;

/** A scorer's value as the log wrote it: text as is, numbers as scores, a list or record as JSON; '—' when none. */
export function valueText(value: OutcomeScorer['value']): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return formatScore(value);
  if (typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** What a letter grade means, when the value is one of Inspect's. */
export function valueGloss(value: OutcomeScorer['value']): string | null {
  return typeof value === 'string' ? (INSPECT_GRADES[value]?.gloss ?? null) : null;
}

/** Whether the value is a pass (true, `C`) or a fail (false, `I`, `N`) as the scorer logged it; null otherwise. */
export function valueTone(value: OutcomeScorer['value']): Tone {
  if (typeof value === 'boolean') return value ? 'good' : 'bad';
  return typeof value === 'string' ? (INSPECT_GRADES[value]?.tone ?? null) : null;
}

/** A, B, … Z for the first 26 options (as Inspect letters them), then 27, 28, …. */
export function choiceLetter(index: number): string {
  return index < 26 ? String.fromCharCode(65 + index) : String(index + 1);
}

/** The option a text names when it is exactly one option's letter (`A`, ` b `); null otherwise. */
export function choiceIndex(text: string | null | undefined, options: number): number | null {
  const letter = text?.trim().toUpperCase();
  if (!letter || !/^[A-Z]$/.test(letter)) return null;
  const index = letter.charCodeAt(0) - 65;
  return index < options ? index : null;
}

/** The targets as a list (a log may give one or several accepted answers); empty when the log gives none. */
export function targetsOf(outcome: OutcomeExplanation): string[] {
  const target = outcome.target;
  if (target === null || target === undefined) return [];
  return Array.isArray(target) ? target : [target];
}

/** One group's counts for a summary: `FAIL_TO_PASS 1/1` (passed of all). */
export function testsLine(group: OutcomeTests): string {
  return `${group.group} ${group.passed.length}/${group.passed.length + group.failed.length}`;
}

/** Whether the log explains anything beyond the score (an empty explanation reads "nothing more in the log"). */
export function explains(outcome: OutcomeExplanation): boolean {
  return (
    outcome.target != null || outcome.answer != null || !!outcome.choices?.length || !!outcome.scorers?.length ||
    !!outcome.tests?.length || !!outcome.notes?.length
  );
}

/** A unified diff (a SWE agent's patch): shown in monospace, where its columns mean something. */
export function looksLikePatch(text: string): boolean {
  return /^(diff --git |@@ -\d+(,\d+)? \+\d+(,\d+)? @@)/m.test(text);
}

/** The first line of a text, cut to `max` characters, for one-line summaries; the empty text reads "(empty)". */
export function firstLine(text: string, max = 120): string {
  const line = text.split(/\r?\n/).find((l) => l.trim() !== '') ?? '';
  if (line === '') return text === '' ? '(empty)' : '(blank)';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
