// `routelens compare` as a user runs it: a child process on the hand-worked database of compareFixture.testSupport.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../testing/cliChild.ts';
import { CompareResult } from '../../shared/apiCompare.ts';
import { buildCompareDb } from '../compare/compareFixture.testSupport.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';

const tempDir = useSuiteTempDir();

function routelens(...args: string[]) {
  return runCli(args);
}

describe('routelens compare', () => {
  let dir: string;
  let db: string;
  beforeAll(async () => {
    dir = tempDir();
    const built = await buildCompareDb(dir);
    built.db.close();
    db = built.path;
  });

  it('prints the API answer with --json and writes every paired task with --out', () => {
    const csv = join(dir, 'tasks.csv');
    const r = routelens('compare', '--db', db, '--a', 'ra', '--b', 'rb', '--bootstrap', '100', '--counterfactual', 'gpt-5', '--json', '--out', csv);
    expect(r.code, r.stderr).toBe(0);
    const doc = CompareResult.parse(JSON.parse(r.stdout));
    expect(doc.pairing.paired_tasks).toBe(4);
    expect(doc.stats.wins).toEqual({ a: 1, tie: 1, b: 2 });
    const lines = readFileSync(csv, 'utf8').trimEnd().split('\r\n');
    expect(lines[0]).toBe('task_id,a_n,b_n,a_success,b_success,a_score,b_score,a_cost,b_cost,d_score,d_cost,winner,a_episode,b_episode,a_counterfactual_cost,b_counterfactual_cost');
    expect(lines).toHaveLength(5);
    expect(lines[4]).toMatch(/^T4,1,1,1,0,1,0,,0\.04,-1,,a,/);
  });

  it('prints a summary: sides, pairing, differences, attribution, and when there are no outcomes, says so', () => {
    const r = routelens('compare', '--db', db, '--a', 'ra', '--b', 'rb', '--bootstrap', '100');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^A: ra: 7 episodes, 5 tasks/m);
    expect(r.stdout).toMatch(/^paired: 4 tasks; unpaired: 2 on A, 1 on B$/m);
    expect(r.stdout).toMatch(/^success B − A: \+0\.250 \[.*exact McNemar p = 1\.00/m);
    expect(r.stdout).toMatch(/^wins: A 1, tie 1, B 2$/m);
    expect(r.stdout).toMatch(/^A +subagent +kimi-k2 +2 /m);
    const none = routelens('compare', '--db', db, '--a', 'na', '--b', 'nb');
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout).toMatch(/^no outcomes: only cost and behaviour compared$/m);
  });

  it('writes a figure as the window exports it: captioned, vector PDF, or its data', () => {
    for (const ext of ['svg', 'pdf', 'png', 'csv']) {
      const file = join(dir, `scatter.${ext}`);
      const r = routelens('compare', '--db', db, '--a', 'ra', '--b', 'rb', '--bootstrap', '50', '--figure', 'paired-scatter', '--out', file);
      expect(r.code, r.stderr).toBe(0);
      const bytes = readFileSync(file);
      const head = bytes.subarray(0, 8).toString('latin1');
      if (ext === 'svg') expect(bytes.toString('utf8')).toContain('Per-task score, B against A: A = ra, B = rb');
      if (ext === 'pdf') {
        expect(head).toMatch(/^%PDF-/);
        expect(bytes.toString('latin1')).not.toContain('/Subtype /Image');
      }
      if (ext === 'png') expect(head.slice(1, 4)).toBe('PNG');
      if (ext === 'csv') expect(bytes.toString('utf8').split('\r\n')[0]).toMatch(/^task_id,a_score,b_score/);
    }
  });

  it('splits a run by a field, and answers a mistake with one line and exit code 1', () => {
    const split = routelens('compare', '--db', db, '--a', 'ra', '--a-where', 'model=gpt-5', '--b', 'ra', '--b-where', 'model=kimi-k2', '--json');
    expect(split.code, split.stderr).toBe(0);
    expect(JSON.parse(split.stdout).b.episodes).toBe(1);
    for (const [args, message] of [
      [['--a', 'nope', '--b', 'rb'], /^routelens compare: --a: no run named "nope" \(runs: /],
      [['--a', 'ra', '--b', 'rb', '--a-where', 'colour=red'], /^routelens compare: --a-where takes FIELD=VALUE/],
      [['--a', 'ra', '--a-where', 'split=test', '--b', 'rb'], /^routelens compare: side A: no episode of "ra" has split = "test" \(values there: none\)/],
      [['--a', 'ra', '--b', 'rb', '--counterfactual', 'nope'], /^routelens compare: no model named "nope"/],
      [['--a', 'ra', '--b', 'rb', '--figure', 'pie'], /^routelens compare: --figure is one of paired-scatter, cost-diff, model-cost/],
      [['--a', 'ra', '--b', 'rb', '--figure', 'cost-diff'], /^routelens compare: --figure needs --out/],
      [['--a', 'ra', '--b', 'rb', '--figure', 'cost-diff', '--out', 'x.gif'], /^routelens compare: --out must end in \.svg/],
    ] as const) {
      const r = routelens('compare', '--db', db, ...args);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    }
  });
});
