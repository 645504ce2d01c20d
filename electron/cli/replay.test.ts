// `routelens replay` as a user runs it: a child process, exit codes, one JSON document on stdout.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT as root, runCli } from '../testing/cliChild.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';

const example = join(root, 'fixtures', 'canonical', 'example.jsonl');
const tempDir = useSuiteTempDir();
let db = '';

function routelens(...args: string[]) {
  return runCli(args, { timeoutMs: 120_000 });
}

beforeAll(() => {
  db = join(tempDir(), 'replay-cli.db');
  expect(routelens('import', example, '--db', db).code).toBe(0);
}, 120_000);

describe('routelens replay', () => {
  it('prints one JSON document with the issue\'s fields per policy', () => {
    const r = routelens('replay', '--db', db, '--policy', 'logged', '--policy', 'cheapest', '--policy', 'random:2', '--bootstrap', '30', '--json');
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.policies.map((p: { policy: string }) => p.policy)).toEqual(['logged', 'cheapest', 'random:2']);
    for (const p of doc.policies) {
      expect(Object.keys(p)).toEqual(expect.arrayContaining(['policy', 'agreement', 'est_score', 'est_cost', 'switches', 'ope']));
      if (p.ope) expect(Object.keys(p.ope.ci).sort()).toEqual(['dr', 'ips', 'wis']);
      expect(p.est_score).toBeNull(); // no estimator in this database
    }
    expect(doc.policies[0].agreement).toBe(1);
  }, 120_000);

  it('prints a table without --json, restricted to one run', () => {
    const r = routelens('replay', '--db', db, '--run', 'hle-router-demo', '--policy', 'logged', '--policy', 'fixed:gpt-5', '--bootstrap', '0');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/in hle-router-demo/);
    expect(r.stdout).toMatch(/^fixed:gpt-5\s+\d+\.\d%/m);
  }, 120_000);

  it('says what is wrong with exit code 1 and no stack trace', () => {
    const cases: [string[], RegExp][] = [
      [['--policy', 'budget:-1'], /policy "budget:-1": USD must be a number > 0/],
      [['--policy', 'logged', '--run', 'nope'], /no run named "nope"/],
      [['--policy', 'fixed:nope'], /no model named "nope"/],
      [[], /at least one --policy/],
      [['--policy', 'logged', '--bootstrap', 'many'], /--bootstrap must be a whole number/],
    ];
    for (const [args, message] of cases) {
      const r = routelens('replay', '--db', db, ...args);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  }, 120_000);

  it('has --help listing every policy spec', () => {
    const r = routelens('replay', '--help');
    expect(r.code).toBe(0);
    for (const s of ['logged', 'argmax', 'cost-aware:LAMBDA', 'budget:USD', 'usage:MODEL=RHO', 'mode:low|medium|high', 'fixed:MODEL', 'cheapest', 'random:SEED']) expect(r.stdout).toContain(s);
  });
});
