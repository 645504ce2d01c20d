/**
 * `routelens alerts --db FILE [--add RULE]... [--remove RULE]... [--enable RULE]... [--disable RULE]... [--list]
 * [--check [--at TIME]]`: the alert rules of a database (docs/alerts.md), the alerts they fired, and a dry run of
 * the rules over the episodes already imported. `watch --alert RULE` saves its rules
 * through alertRulesFromFlags, so the window, `alerts --list` and the watcher read the same rules.
 */
import { parseRule } from '../../shared/alertRules.ts';
import { visibleText as v } from '../../shared/displayText.ts';
import { listAlerts } from '../alerts/alertLog.ts';
import { checkAlertRules } from '../alerts/checkAlertRules.ts';
import { listAlertRules, removeAlertRule, saveAlertRule } from '../alerts/alertRuleStore.ts';
import { describeWait, openDatabase, waitForWriteTurn } from '../db/database.ts';
import type { Db } from '../db/dbHandle.ts';
import { err, out, print, requireDb, UsageError, type Command } from './common.ts';

/** How many of the latest alerts `--list` prints. */
const LISTED_ALERTS = 20;

const strings = (x: unknown): string[] => (Array.isArray(x) ? x.filter((s): s is string => typeof s === 'string') : []);

/** Every rule checked before any is saved: one invalid rule is the user's mistake, said in one line naming it. */
function canonicalAll(rules: string[]): string[] {
  return rules.map((text) => {
    const parsed = parseRule(text);
    if (!parsed.ok) throw new UsageError(parsed.error);
    return parsed.text;
  });
}

/**
 * `watch --alert RULE…`: checks every rule, then saves them all enabled (one that exists disabled is enabled
 * again), on `db`, a writer connection. Answers the rules in their canonical spelling. An invalid rule throws a
 * UsageError (exit 1, one line: `rule "rate>5/x": column 8: …`) and nothing is saved.
 */
export function alertRulesFromFlags(db: Db, rules: string[]): string[] {
  const canonical = canonicalAll(rules);
  db.transaction(() => {
    for (const rule of canonical) saveAlertRule(db, rule, true);
  })();
  return canonical;
}

interface Changes {
  add: string[];
  remove: string[];
  enable: string[];
  disable: string[];
}

function applyChanges(db: Db, c: Changes): string[] {
  const done: string[] = [];
  const known = new Set(listAlertRules(db).map((r) => r.rule));
  const existing = (rule: string, shown: string): string => {
    if (!known.has(rule)) throw new UsageError(`no rule ${shown} in this database (routelens alerts --list shows them)`);
    return rule;
  };
  db.transaction(() => {
    for (const rule of c.add) {
      known.add(saveAlertRule(db, rule, true));
      done.push(`added ${rule}`);
    }
    for (const [rules, on] of [[c.enable, true], [c.disable, false]] as const) {
      for (const rule of rules) {
        saveAlertRule(db, existing(rule, rule), on);
        done.push(`${on ? 'enabled' : 'disabled'} ${rule}`);
      }
    }
    for (const text of c.remove) {
      if (!removeAlertRule(db, text)) throw new UsageError(`no rule "${text}" in this database (routelens alerts --list shows them)`);
      done.push(`removed ${text}`);
    }
  })();
  return done;
}

function atFlag(values: Record<string, unknown>): Date | null {
  if (typeof values.at !== 'string') return null;
  const ms = Date.parse(values.at);
  if (!Number.isFinite(ms)) throw new UsageError(`--at: "${values.at}" is not a time (e.g. 2026-11-29T12:00:00Z)`);
  return new Date(ms);
}

function printCheck(db: Db, at: Date, json: boolean): number {
  const result = checkAlertRules(db, at);
  if (json) return print({ at: at.toISOString(), ...result });
  if (result.rules.length === 0) {
    out('no enabled alert rules to check');
    return 0;
  }
  out(`${result.rules.length} enabled rule(s) over ${result.episodes} episode(s) at ${at.toISOString()} (nothing recorded):`);
  for (const r of result.rules) {
    out(`  ${v(r.rule)}: fires for ${r.counts.fires}, quiet for ${r.counts.quiet}, cannot tell for ${r.counts.unknown}`);
    for (const x of r.examples) out(`    ${v(x.run)} / ${v(x.episode)}: ${v(x.message)}`);
  }
  return 0;
}

export const command: Command = {
  usage: 'routelens alerts --db FILE [--add RULE]... [--remove RULE]... [--enable RULE]... [--disable RULE]... [--list] [--check [--at TIME]] [--json]\n' +
    '  RULE: rate>5/h, cost>10, calls>200, switches>=5, model~opus streak>20, errors>=3 in 5, errors>=3 in 10m (docs/alerts.md)\n' +
    '  --check: what the enabled rules would say of every episode now (or --at TIME, ISO 8601), recording nothing',
  options: {
    db: { type: 'string' },
    add: { type: 'string', multiple: true },
    remove: { type: 'string', multiple: true },
    enable: { type: 'string', multiple: true },
    disable: { type: 'string', multiple: true },
    list: { type: 'boolean' },
    check: { type: 'boolean' },
    at: { type: 'string' },
    json: { type: 'boolean' },
  },
  async run(values) {
    const dbPath = requireDb(values);
    // Removal takes a rule as stored even when it no longer parses (a database from a later RouteLens).
    const changes: Changes = {
      add: canonicalAll(strings(values.add)),
      enable: canonicalAll(strings(values.enable)),
      disable: canonicalAll(strings(values.disable)),
      remove: strings(values.remove),
    };
    const writes = changes.add.length + changes.enable.length + changes.disable.length + changes.remove.length;
    if (writes > 0) {
      await waitForWriteTurn(dbPath, { what: 'alert rules', onWait: (w) => err(describeWait(w)) });
      const writer = openDatabase(dbPath);
      try {
        const done = applyChanges(writer, changes);
        if (!values.json) for (const line of done) out(line);
      } finally {
        writer.close();
      }
      if (!values.list && !values.check && !values.json) return 0;
    }
    const at = atFlag(values);
    if (at !== null && !values.check) throw new UsageError('--at goes with --check (the moment the rules are checked at)');
    const db = openDatabase(dbPath, { readonly: true });
    try {
      if (values.check) return printCheck(db, at ?? new Date(), values.json === true);
      const rules = listAlertRules(db);
      const alerts = listAlerts(db, { last: LISTED_ALERTS });
      if (values.json) return print({ rules, alerts });
      out(rules.length === 0 ? 'no alert rules (add one: routelens alerts --db FILE --add "rate>5/h")' : 'rules:');
      for (const r of rules) out(`  ${r.error ? 'invalid' : r.enabled ? 'on ' : 'off'}  ${v(r.rule)}${r.error ? `  (${v(r.error)})` : ''}`);
      const total = db.prepare('SELECT COUNT(*) FROM alerts').pluck().get() as number;
      out(total === 0 ? 'no alerts fired yet' : `alerts fired${total > alerts.length ? ` (the last ${alerts.length} of ${total})` : ''}:`);
      for (const a of alerts) out(`  ${a.fired_at}  ${v(a.run)} / ${v(a.episode)}  ${v(a.message)}`);
      return 0;
    } finally {
      db.close();
    }
  },
};
