/**
 * A dry run of the enabled rules over every episode of a database (`routelens alerts --check`): what would fire,
 * what is quiet, and what cannot be told (calls of unknown cost or time), without recording anything. It shows
 * a rule's effect on logs already imported before a watcher acts on it, and says where a rule cannot decide.
 */
import { evaluateRule, type RuleOutcome } from '../../shared/alertRules.ts';
import type { Db } from '../db/dbHandle.ts';
import { enabledAlertRules } from './alertRuleStore.ts';
import { alertCallsOf, alertEpisodeOf, readsTime } from './fireAlerts.ts';

/** How many episodes' messages a rule's check keeps for each outcome (the counts cover them all). */
const KEPT = 3;

export interface RuleCheck {
  rule: string;
  counts: Record<RuleOutcome['outcome'], number>;
  /** The first few episodes that fire, and the first few it cannot tell about, with their messages. */
  examples: { outcome: 'fires' | 'unknown'; run: string; episode: string; message: string }[];
}

export function checkAlertRules(db: Db, now: Date = new Date()): { episodes: number; rules: RuleCheck[] } {
  const rules = enabledAlertRules(db);
  const checks: RuleCheck[] = rules.map((r) => ({ rule: r.text, counts: { fires: 0, quiet: 0, unknown: 0 }, examples: [] }));
  const episodes = db.prepare('SELECT e.id, e.ext_id AS episode, r.name AS run FROM episodes e JOIN runs r ON r.id = e.run_id ORDER BY e.id').all() as {
    id: number; episode: string; run: string;
  }[];
  if (rules.length === 0) return { episodes: episodes.length, rules: checks };
  const withTime = rules.some((r) => readsTime(r.rule));
  const at = now.getTime();
  for (const e of episodes) {
    const calls = alertCallsOf(db, e.id, withTime);
    const episode = alertEpisodeOf(db, e.id);
    rules.forEach(({ rule }, i) => {
      const check = checks[i] as RuleCheck;
      const result = evaluateRule(rule, calls, at, episode);
      check.counts[result.outcome]++;
      if (result.outcome !== 'quiet' && check.examples.filter((x) => x.outcome === result.outcome).length < KEPT) {
        check.examples.push({ outcome: result.outcome, run: e.run, episode: e.episode, message: result.message });
      }
    });
  }
  return { episodes: episodes.length, rules: checks };
}
