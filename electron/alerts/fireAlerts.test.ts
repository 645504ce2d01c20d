// fireAlerts on a real database built by the import pipeline: rules fire once per episode (also across a
// re-import that gives the episode a new id), only for the episodes named, never on costs the log does not give.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../db/database.ts';
import type { Db } from '../db/dbHandle.ts';
import { importPaths } from '../importers/pipeline.ts';
import { useTempDir } from '../testing/tmp.ts';
import { listAlerts } from './alertLog.ts';
import { AlertRuleError, listAlertRules, removeAlertRule, saveAlertRule } from './alertRuleStore.ts';
import { fireAlerts } from './fireAlerts.ts';

const tempDir = useTempDir();
const NOW = new Date('2026-11-29T12:00:00Z');

interface TurnSpec {
  model: string;
  cost?: number;
  error?: boolean;
  minutesAgo: number;
}

function episodeLine(run: string, id: string, turns: TurnSpec[], total?: number): string {
  return JSON.stringify({
    schema: 'routelens/v1', run, episode_id: id, ...(total === undefined ? {} : { cost_usd: total }),
    task: { id: `task-${id}`, type: 'coding', text: 'fix the bug' },
    outcome: { score: null, success: null },
    turns: turns.map((s, t) => ({
      t, model: s.model, action: { type: 'tool', tool: 'bash', text: `step ${t}` }, observation: 'ok',
      timestamp: new Date(NOW.getTime() - s.minutesAgo * 60_000).toISOString(),
      ...(s.cost === undefined ? {} : { cost_usd: s.cost }),
      errors: s.error ? [{ type: 'tool_error', severity: 'medium' }] : [],
    })),
  });
}

/** 25 calls to claude-opus-4 a minute apart, $0.10 each ($2.50), two errors three calls apart. */
const opusLoop = (): TurnSpec[] =>
  Array.from({ length: 25 }, (_, i) => ({ model: 'claude-opus-4', cost: 0.1, minutesAgo: 24 - i, error: i === 10 || i === 12 }));
/** 5 calls whose cost the log does not give (no cost, no tokens). */
const unknownCosts = (): TurnSpec[] => Array.from({ length: 5 }, (_, i) => ({ model: 'some-local-model', minutesAgo: 4 - i }));

let db: Db;
let folder: string;

async function importLines(file: string, lines: string[]): Promise<void> {
  const path = join(folder, file);
  writeFileSync(path, `${lines.join('\n')}\n`);
  const report = await importPaths(db, [path]);
  expect(report.files.map((f) => f.status)).toEqual(['imported']);
}

const idOf = (episode: string): number => db.prepare('SELECT id FROM episodes WHERE ext_id = ?').pluck().get(episode) as number;

beforeEach(() => {
  folder = tempDir();
  db = openDatabase(join(folder, 'alerts.db'));
  return () => db.close();
});

describe('alert rules in the database', () => {
  it('are stored in their canonical spelling, enabled or not, and an invalid one is refused with the parser message', () => {
    expect(saveAlertRule(db, ' rate > 5 / h ')).toBe('rate>5/h');
    expect(saveAlertRule(db, 'rate>5/h', false)).toBe('rate>5/h');
    saveAlertRule(db, 'model~Opus streak>20');
    expect(listAlertRules(db).map((r) => [r.rule, r.enabled, r.error])).toEqual([['rate>5/h', false, null], ['model~opus streak>20', true, null]]);
    expect(() => saveAlertRule(db, 'rate>5/x')).toThrow(new AlertRuleError('rule "rate>5/x": column 8: expected a time unit after "/" (m, h or d), found "x"'));
    expect(removeAlertRule(db, 'model ~ opus streak > 20')).toBe(true);
    expect(removeAlertRule(db, 'model~opus streak>20')).toBe(false);
    // A stored rule that no longer parses is listed with why, and can still be removed as it is spelled.
    db.prepare("INSERT INTO alert_rules (rule, enabled, created_at) VALUES ('speed>1', 1, 'x')").run();
    expect(listAlertRules(db).find((r) => r.rule === 'speed>1')?.error).toMatch(/expected a measure/);
    expect(removeAlertRule(db, 'speed>1')).toBe(true);
  });
});

describe('fireAlerts', () => {
  it('fires each enabled rule once per episode, only for the episodes named, and says what it measured', async () => {
    await importLines('live.jsonl', [episodeLine('live', 'loop', opusLoop()), episodeLine('live', 'local', unknownCosts())]);
    for (const rule of ['model~opus streak>20', 'cost>2', 'errors>=2 in 3', 'rate>5/h', 'calls>100']) saveAlertRule(db, rule);
    saveAlertRule(db, 'calls>3', false); // disabled: never fires

    expect(fireAlerts(db, [idOf('local')], NOW)).toEqual([]); // cost and rate unknown there; no streak, no errors
    const fired = fireAlerts(db, [idOf('loop')], NOW);
    expect(fired.map((a) => [a.run, a.episode, a.rule, a.message, a.fired_at])).toEqual([
      ['live', 'loop', 'model~opus streak>20', '25 calls in a row to claude-opus-4 (rule model~opus streak>20)', NOW.toISOString()],
      ['live', 'loop', 'cost>2', '$2.50 spent so far (rule cost>2)', NOW.toISOString()],
      ['live', 'loop', 'errors>=2 in 3', '2 calls with errors within 3 calls (turns 10–12) (rule errors>=2 in 3)', NOW.toISOString()],
      // The last 10 minutes hold 10 calls ($1.00): $6.00/h.
      ['live', 'loop', 'rate>5/h', '$6.00/h over the last 10 min (rule rate>5/h)', NOW.toISOString()],
    ]);
    expect(listAlerts(db).map((a) => a.id)).toEqual(fired.map((a) => a.id));

    // Once per episode: a later commit of the same episode fires nothing again.
    expect(fireAlerts(db, [idOf('loop'), idOf('local')], new Date(NOW.getTime() + 60_000))).toEqual([]);
    // A new rule fires on its own.
    saveAlertRule(db, 'switches=0');
    expect(fireAlerts(db, [idOf('loop')], NOW).map((a) => a.rule)).toEqual(['switches=0']);
    expect(listAlerts(db, { sinceId: fired.at(-1)?.id }).map((a) => [a.episode, a.rule, a.episode_id])).toEqual([['loop', 'switches=0', idOf('loop')]]);
  });

  it('never fires on costs the log does not give, whichever way the rule compares', async () => {
    saveAlertRule(db, 'cost>0');
    saveAlertRule(db, 'cost<1');
    await importLines('local.jsonl', [episodeLine('live', 'local', unknownCosts())]);
    expect(fireAlerts(db, [idOf('local')], NOW)).toEqual([]);
    expect(db.prepare('SELECT COUNT(*) FROM alerts').pluck().get()).toBe(0);
  });

  it("reads the log's total where its calls carry no cost of their own", async () => {
    saveAlertRule(db, 'cost>2');
    await importLines('total.jsonl', [episodeLine('live', 'total', unknownCosts(), 2.75)]);
    expect(fireAlerts(db, [idOf('total')], NOW).map((a) => a.message)).toEqual(["$2.75 spent so far (the log's total) (rule cost>2)"]);
  });

  it('keeps what an episode fired when a re-import gives it a new id', async () => {
    saveAlertRule(db, 'calls>20');
    await importLines('a.jsonl', [episodeLine('live', 'loop', opusLoop()), episodeLine('live', 'other', unknownCosts())]);
    const first = idOf('loop');
    expect(fireAlerts(db, [first], NOW)).toHaveLength(1);
    db.prepare('DELETE FROM episodes WHERE id = ?').run(first);
    await importLines('b.jsonl', [episodeLine('live', 'loop', [...opusLoop(), { model: 'gpt-5', cost: 0.1, minutesAgo: 0 }])]);
    expect(idOf('loop')).not.toBe(first);
    expect(fireAlerts(db, [idOf('loop')], NOW)).toEqual([]);
    expect(listAlerts(db).map((a) => [a.episode, a.episode_id])).toEqual([['loop', idOf('loop')]]);
  });

  it('reads nothing when no rule is enabled or no episode is named', async () => {
    await importLines('live.jsonl', [episodeLine('live', 'loop', opusLoop())]);
    expect(fireAlerts(db, [idOf('loop')], NOW)).toEqual([]);
    saveAlertRule(db, 'calls>1');
    expect(fireAlerts(db, [], NOW)).toEqual([]);
    expect(fireAlerts(db, [idOf('loop') + 1000], NOW)).toEqual([]);
  });
});
