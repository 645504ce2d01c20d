// `routelens alerts` as a user runs it: rules added in any spelling, mistakes in one line with exit 1 and nothing
// saved, --list with the alerts fired; alertRulesFromFlags as `watch --alert` calls it.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listAlertRules, saveAlertRule } from '../alerts/alertRuleStore.ts';
import { openDatabase } from '../db/database.ts';
import { runCli } from '../testing/cliChild.ts';
import { useTempDir } from '../testing/tmp.ts';
import { alertRulesFromFlags } from './alerts.ts';
import { UsageError } from './common.ts';

const tempDir = useTempDir();

function freshDb(): string {
  const path = join(tempDir(), 'alerts.db');
  openDatabase(path).close();
  return path;
}

function rulesIn(path: string): [string, boolean][] {
  const db = openDatabase(path, { readonly: true });
  try {
    return listAlertRules(db).map((r) => [r.rule, r.enabled]);
  } finally {
    db.close();
  }
}

describe('routelens alerts', () => {
  it('adds rules in their canonical spelling, disables and removes them, and lists them with the alerts fired', () => {
    const db = freshDb();
    let r = runCli(['alerts', '--db', db, '--add', 'rate > 5 / h', '--add', 'model~Opus streak>20', '--add', 'errors>=3 in 5']);
    expect([r.code, r.stdout, r.stderr]).toEqual([0, 'added rate>5/h\nadded model~opus streak>20\nadded errors>=3 in 5\n', '']);
    r = runCli(['alerts', '--db', db, '--disable', 'errors >= 3 in 5', '--remove', 'rate>5/h']);
    expect([r.code, r.stdout]).toEqual([0, 'disabled errors>=3 in 5\nremoved rate>5/h\n']);
    expect(rulesIn(db)).toEqual([['model~opus streak>20', true], ['errors>=3 in 5', false]]);

    const writer = openDatabase(db);
    writer.prepare(`INSERT INTO alerts (run, episode, rule, fired_at, message) VALUES ('live', 's1', 'model~opus streak>20',
      '2026-11-29T12:00:00.000Z', '21 calls in a row to claude-opus-4 (rule model~opus streak>20)')`).run();
    writer.close();
    r = runCli(['alerts', '--db', db, '--list']);
    expect([r.code, r.stdout]).toEqual([0, [
      'rules:', '  on   model~opus streak>20', '  off  errors>=3 in 5',
      'alerts fired:', '  2026-11-29T12:00:00.000Z  live / s1  21 calls in a row to claude-opus-4 (rule model~opus streak>20)', '',
    ].join('\n')]);
  });

  it('a mistake is one line naming the rule, exit 1, and saves nothing', () => {
    const db = freshDb();
    for (const [args, message] of [
      [['--add', 'cost>1', '--add', 'rate>5/x'], 'routelens alerts: rule "rate>5/x": column 8: expected a time unit after "/" (m, h or d), found "x"'],
      [['--add', 'model~opus'], 'routelens alerts: rule "model~opus": column 11: expected a condition after model~opus (e.g. streak>20 or calls>100), found the end of the rule'],
      [['--remove', 'cost>1'], 'routelens alerts: no rule "cost>1" in this database (routelens alerts --list shows them)'],
      [['--enable', 'calls>3'], 'routelens alerts: no rule calls>3 in this database (routelens alerts --list shows them)'],
    ] as const) {
      const r = runCli(['alerts', '--db', db, ...args]);
      expect([r.code, r.stderr, r.stdout], args.join(' ')).toEqual([1, `${message}\n`, '']);
    }
    expect(rulesIn(db)).toEqual([]);
  });
});

describe('alertRulesFromFlags (watch --alert)', () => {
  it('checks every rule before saving any, and enables a rule that was disabled', () => {
    const path = freshDb();
    const db = openDatabase(path);
    try {
      saveAlertRule(db, 'cost>10', false);
      expect(() => alertRulesFromFlags(db, ['calls>200', 'errors>=3 in'])).toThrow(
        new UsageError('rule "errors>=3 in": column 13: expected a number of calls (e.g. 5) or a time window (e.g. 10m), found the end of the rule'),
      );
      expect(listAlertRules(db).map((r) => r.rule)).toEqual(['cost>10']);
      expect(alertRulesFromFlags(db, ['cost > 10', 'calls>200'])).toEqual(['cost>10', 'calls>200']);
      expect(listAlertRules(db).map((r) => [r.rule, r.enabled])).toEqual([['cost>10', true], ['calls>200', true]]);
    } finally {
      db.close();
    }
  });
});
