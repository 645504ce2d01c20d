// `routelens alerts` as a user runs it: rules added in any spelling, mistakes in one line with exit 1 and nothing
// saved, --list with the alerts fired; alertRulesFromFlags as `watch --alert` calls it.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listAlertRules, saveAlertRule } from '../alerts/alertRuleStore.ts';
import { openDatabase } from '../db/database.ts';
import { REPO_ROOT, runCli } from '../testing/cliChild.ts';
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

describe('routelens alerts --check', () => {
  it('says what each enabled rule would say of every episode, including what it cannot tell, and records nothing', async () => {
    const db = freshDb();
    const log = join(tempDir(), 'example.jsonl');
    writeFileSync(log, readFileSync(join(REPO_ROOT, 'fixtures/canonical/example.jsonl')));
    expect(runCli(['import', log, '--db', db]).code).toBe(0);
    // Added and checked in one command.
    const r = runCli(['alerts', '--db', db, '--add', 'switches>=4', '--add', 'rate>1/h', '--check', '--at', '2026-11-29T12:00:00Z']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines.slice(0, 3)).toEqual(['added switches>=4', 'added rate>1/h', '2 enabled rule(s) over 13 episode(s) at 2026-11-29T12:00:00.000Z (nothing recorded):']);
    // Two of the example's episodes switch model four times (the database's own count agrees).
    expect(lines).toContain('  switches>=4: fires for 2, quiet for 11, cannot tell for 0');
    // The example's calls carry no time: a rate cannot be told, and says why.
    expect(lines).toContain('  rate>1/h: fires for 0, quiet for 0, cannot tell for 13');
    expect(r.stdout).toMatch(/: cannot tell: \$0\.0000\/h over the last 10 min; \d+ calls without a time not counted \(rule rate>1\/h\)/);
    expect(runCli(['alerts', '--db', db, '--list']).stdout).toContain('no alerts fired yet');
    expect(runCli(['alerts', '--db', db, '--at', '2026-11-29T12:00:00Z']).stderr).toBe('routelens alerts: --at goes with --check (the moment the rules are checked at)\n');
    expect(runCli(['alerts', '--db', db, '--check', '--at', 'noon']).stderr).toBe('routelens alerts: --at: "noon" is not a time (e.g. 2026-11-29T12:00:00Z)\n');
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
