/**
 * The alert rules of a database (table alert_rules, migration 10): what `routelens alerts`, `watch --alert` and
 * the window's rule editor read and change. A rule is stored in its canonical spelling (shared/alertRules.ts
 * formatRule), so `rate > 5/h` typed in the window and `rate>5/h` given to the CLI are one rule.
 */
import { parseRule, type AlertRule } from '../../shared/alertRules.ts';
import type { Db } from '../db/dbHandle.ts';

/** A rule the user wrote is not one (the parser's one-line message, naming the rule and the column). */
export class AlertRuleError extends Error {}

export interface StoredAlertRule {
  rule: string;
  enabled: boolean;
  created_at: string;
  /** Why a stored rule no longer parses (a database edited by hand, or by a later RouteLens); null when it does. */
  error: string | null;
}

export function listAlertRules(db: Db): StoredAlertRule[] {
  const rows = db.prepare('SELECT rule, enabled, created_at FROM alert_rules ORDER BY id').all() as { rule: string; enabled: number; created_at: string }[];
  return rows.map((r) => {
    const parsed = parseRule(r.rule);
    return { rule: r.rule, enabled: r.enabled !== 0, created_at: r.created_at, error: parsed.ok ? null : parsed.error };
  });
}

/** The enabled rules that parse, as the evaluation reads them. */
export function enabledAlertRules(db: Db): { text: string; rule: AlertRule }[] {
  const texts = db.prepare('SELECT rule FROM alert_rules WHERE enabled != 0 ORDER BY id').pluck().all() as string[];
  const rules: { text: string; rule: AlertRule }[] = [];
  for (const text of texts) {
    const parsed = parseRule(text);
    // A stored rule that no longer parses is shown with its error by `alerts --list` and the editor; it cannot be evaluated.
    if (parsed.ok) rules.push({ text, rule: parsed.rule });
  }
  return rules;
}

/** The canonical spelling of `text`, or an AlertRuleError saying what is wrong with it. */
export function canonicalRule(text: string): string {
  const parsed = parseRule(text);
  if (!parsed.ok) throw new AlertRuleError(parsed.error);
  return parsed.text;
}

/** Adds the rule, or sets whether an existing one is enabled; answers its canonical spelling. */
export function saveAlertRule(db: Db, text: string, enabled = true, now = new Date()): string {
  const rule = canonicalRule(text);
  db.prepare(`INSERT INTO alert_rules (rule, enabled, created_at) VALUES (?, ?, ?)
    ON CONFLICT (rule) DO UPDATE SET enabled = excluded.enabled`).run(rule, enabled ? 1 : 0, now.toISOString());
  return rule;
}

/**
 * Removes the rule (spelled any way that parses to it, or exactly as stored when it no longer parses); false when
 * there was none. The alerts it fired stay: they are what happened.
 */
export function removeAlertRule(db: Db, text: string): boolean {
  const parsed = parseRule(text);
  const stmt = db.prepare('DELETE FROM alert_rules WHERE rule = ?');
  return (parsed.ok && stmt.run(parsed.text).changes > 0) || stmt.run(text).changes > 0;
}
