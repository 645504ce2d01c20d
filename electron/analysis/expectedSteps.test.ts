// N per (task type, category) as the MTRouter authors' code looks it up, the switch to their YAML's per-task
// ScienceWorld table, and S̃ worked by hand from their compute_step_aec_penalty for episodes written at import.
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CanonicalEpisode } from '../../shared/canonical.ts';
import { openDatabase } from '../db/database.ts';
import type { Db } from '../db/dbHandle.ts';
import { EpisodeWriter } from '../db/episodeWriter.ts';
import { ImportError } from '../importers/types.ts';
import { useTempDir } from '../testing/tmp.ts';
import { defaultErrorRules } from './errorRules.ts';
import { defaultExpectedSteps, expectedSteps, loadExpectedSteps, type ExpectedStepsTable } from './expectedSteps.ts';
import { storedExpectedSteps } from './storedExpectedSteps.ts';
import { episodeTargets } from './targets.ts';

const tempDir = useTempDir();

describe('N by (task type, category)', () => {
  it('HLE goes by subject (the authors\' table), default 8 for any other subject', () => {
    expect(expectedSteps({ type: 'hle', category: 'Other' })).toBe(14);
    expect(expectedSteps({ type: 'hle', category: 'Humanities/Social Science' })).toBe(12);
    expect(expectedSteps({ type: 'hle', category: 'Computer Science/AI' })).toBe(5);
    expect(expectedSteps({ type: 'HLE', category: 'Biology/Medicine' })).toBe(7);
    expect(expectedSteps({ type: 'hle', category: 'other' })).toBe(8); // categories are exact, as dict keys are
    expect(expectedSteps({ type: 'hle', category: 'Astrology' })).toBe(8);
    expect(expectedSteps({ type: 'hle', category: null })).toBe(8);
  });

  it('categories of one benchmark never reach another; ScienceWorld is 27 for every task by default', () => {
    expect(expectedSteps({ type: 'scienceworld', category: 'Other' })).toBe(27);
    expect(expectedSteps({ type: 'scienceworld', category: 'boil' })).toBe(27);
    expect(expectedSteps({ type: 'gaia', category: 'Other' })).toBe(8);
  });

  it('other types keep what RouteLens did before: QA-like 8, anything else 27; the log\'s own N wins', () => {
    expect(expectedSteps({ type: 'simpleqa' })).toBe(8);
    expect(expectedSteps({ type: 'swe', category: 'django' })).toBe(27);
    expect(expectedSteps({ type: 'never-heard-of-it' })).toBe(27);
    expect(expectedSteps({ type: null })).toBe(27);
    expect(expectedSteps({ type: 'hle', category: 'Other', expected_steps: 3 })).toBe(3);
  });
});

describe('an episode that stored no N', () => {
  it('gets what the checked built-in table gives, for every type and category it names, and for others', () => {
    const table = defaultExpectedSteps();
    const cases: { type: string | null; category: string | null }[] = [{ type: null, category: null }, { type: 'never-heard-of-it', category: 'x' }];
    for (const [type, entry] of table.byTaskType) {
      cases.push({ type, category: null }, { type: type.toUpperCase(), category: 'no such category' });
      for (const category of Object.keys(entry.by_category)) cases.push({ type, category });
    }
    expect(cases.length).toBeGreaterThan(20);
    for (const c of cases) {
      expect(storedExpectedSteps({ expected_steps: null, task_type: c.type, task_category: c.category }), JSON.stringify(c)).toBe(expectedSteps(c, table));
    }
    expect(storedExpectedSteps({ expected_steps: 4, task_type: 'hle', task_category: 'Other' })).toBe(4);
  });
});

describe('--expected-steps', () => {
  it('mtrouter-yaml switches ScienceWorld to the YAML\'s per-task table and leaves the rest', () => {
    const yaml = loadExpectedSteps('mtrouter-yaml');
    expect(expectedSteps({ type: 'scienceworld', category: 'boil' }, yaml)).toBe(38);
    expect(expectedSteps({ type: 'scienceworld', category: 'mendelian-genetics-known-plant' }, yaml)).toBe(8);
    expect(expectedSteps({ type: 'scienceworld', category: 'freeze' }, yaml)).toBe(27);
    expect(expectedSteps({ type: 'hle', category: 'Other' }, yaml)).toBe(14);
    expect(expectedSteps({ type: 'qa' }, yaml)).toBe(8);
  });

  it('reads the authors\' error_rules.yaml (aec.expected_steps; a benchmark without a default gets 20, as their code)', () => {
    const file = join(tempDir(), 'error_rules.yaml');
    writeFileSync(file, [
      'version: "2.0"', 'defaults:', '  enabled: true', 'aec:', '  enabled: true', '  expected_steps:',
      '    hle:', '      default: 8', '      "Math": 11', '    scienceworld:', '      boil: 40',
      '  severity_coefficients:', '    high: 1.0', 'scienceworld:', '  no_known_action:', '    patterns:',
      '      - "No known action matches that input"', '    severity: high', '',
    ].join('\n'));
    const table = loadExpectedSteps(file);
    expect(expectedSteps({ type: 'hle', category: 'Math' }, table)).toBe(11);
    expect(expectedSteps({ type: 'hle', category: 'Other' }, table)).toBe(8);
    expect(expectedSteps({ type: 'scienceworld', category: 'boil' }, table)).toBe(40);
    expect(expectedSteps({ type: 'scienceworld', category: 'melt' }, table)).toBe(20);
    expect(expectedSteps({ type: 'swe' }, table)).toBe(27);
  });

  it('reads our own format, replacing only the task types it names', () => {
    const file = join(tempDir(), 'n.json');
    writeFileSync(file, JSON.stringify({ by_task_type: { scienceworld: { default: 30, by_category: { melt: 12 } } } }));
    const table = loadExpectedSteps(file);
    expect(expectedSteps({ type: 'scienceworld', category: 'melt' }, table)).toBe(12);
    expect(expectedSteps({ type: 'scienceworld', category: 'boil' }, table)).toBe(30);
    expect(expectedSteps({ type: 'hle', category: 'Other' }, table)).toBe(14);
  });

  it('a category or task type named __proto__ keeps its N (zod\'s own record dropped those keys)', () => {
    const file = join(tempDir(), 'proto.json');
    writeFileSync(file, '{"by_task_type": {"scienceworld": {"default": 30, "by_category": {"__proto__": 12}}, "__proto__": {"default": 9}}}');
    const table = loadExpectedSteps(file);
    expect(expectedSteps({ type: 'scienceworld', category: '__proto__' }, table)).toBe(12);
    expect(expectedSteps({ type: 'scienceworld', category: 'constructor' }, table)).toBe(30);
    expect(expectedSteps({ type: '__proto__', category: 'x' }, table)).toBe(9);
  });

  it('a wrong file is file:line: what; an unknown name says what is accepted', () => {
    const dir = tempDir();
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'aec:\n  expected_steps:\n    scienceworld:\n      boil: 0\n');
    expect(() => loadExpectedSteps(bad)).toThrow(ImportError);
    expect(() => loadExpectedSteps(bad)).toThrow(/bad\.yaml:4: aec\.expected_steps\.scienceworld\.boil: /);
    const typo = join(dir, 'typo.json');
    writeFileSync(typo, '{\n  "by_task_type": {\n    "hle": { "default": 8, "by_categroy": {} }\n  }\n}\n');
    expect(() => loadExpectedSteps(typo)).toThrow(/typo\.json:3: by_task_type\.hle: Unrecognized key.*by_categroy/);
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{\n  "by_task_type": {\n    "hle": [1,\n}\n');
    expect(() => loadExpectedSteps(broken)).toThrow(/broken\.json:\d+: not JSON or YAML/);
    expect(() => loadExpectedSteps('mtrouter-yml')).toThrow(/no such file, and no built-in table of that name \(mtrouter-yaml\)/);
  });
});

/** One episode written through the import path; returns its id. */
function importEpisode(db: Db, raw: unknown, table?: ExpectedStepsTable): number {
  const writer = new EpisodeWriter(db, defaultErrorRules(), table);
  db.exec('BEGIN');
  const { episodeId } = writer.write(CanonicalEpisode.parse(raw), 'canonical', 'test', null);
  writer.flushText();
  db.exec('COMMIT');
  writer.commit();
  return episodeId;
}

const storedTargets = (db: Db, episodeId: number) =>
  db.prepare('SELECT g.s_tilde, g.penalty FROM targets g JOIN turns t ON t.id = g.turn_id WHERE t.episode_id = ? ORDER BY t.t').all(episodeId) as { s_tilde: number; penalty: number }[];

describe('S̃ at import', () => {
  it('an HLE episode gets N from its subject and the authors\' penalties (worked by hand)', () => {
    const db = openDatabase(join(tempDir(), 'hle.db'));
    const observations = [
      'Request Timed out', // browse_timeout, low
      'Traceback (most recent call last):\n  File "<string>", line 2, in <module>\nValueError: bad', // python_value_error, medium
      'stdout:\n42\n',
      'Failed to fetch https://example.org: HTTP 403 Forbidden', // browse_access_denied, low
      'Execution timed out after 30 seconds', // python_timeout high + browse_timeout low
    ];
    const id = importEpisode(db, {
      schema: 'routelens/v1', run: 'r', episode_id: 'cs',
      task: { id: 'q1', type: 'hle', category: 'Computer Science/AI' },
      outcome: { score: 1, score_range: [0, 1], success: true },
      turns: observations.map((observation, t) => ({ t, model: 'gpt-5', action: { type: 'tool', tool: 'python', text: 'x' }, observation })),
    });
    expect(db.prepare('SELECT expected_steps FROM episodes WHERE id = ?').pluck().get(id)).toBe(5);
    // N = 5, base = 0.2, p = (t+1)/5, floor 0.2·base = 0.04:
    // t0 low  p .2 w .3    → max(.2·.2·.3 = .012, .04) = .04
    // t1 med  p .4 w .475  → .2·.8·.475 = .076
    // t3 low  p .8 w 1     → max(.2·.2·1, .04) = .04
    // t4 high p 1  w 1     → .2·1·1 = .2            total .356
    const penalty = [0.04, 0.076, 0, 0.04, 0.2];
    const sTilde = [0.644, 0.684, 0.76, 0.76, 0.8];
    const stored = storedTargets(db, id);
    stored.forEach((row, t) => {
      expect(row.penalty).toBeCloseTo(penalty[t]!, 12);
      expect(row.s_tilde).toBeCloseTo(sTilde[t]!, 12);
    });
    // `analyze targets` recomputes from what the import stored and lands on the same numbers.
    const recomputed = episodeTargets(db, id).turns;
    expect(recomputed.map((t) => t.s_tilde)).toEqual(stored.map((t) => t.s_tilde));
    expect(recomputed[1]?.errors).toEqual(['python_value_error']);
    db.close();
  });

  it('the ScienceWorld switch moves N from 27 to the task\'s value, and S̃ with it', () => {
    const sw = {
      schema: 'routelens/v1', run: 'r', episode_id: 'boil_3',
      task: { id: 'boil_3', type: 'scienceworld', category: 'boil' },
      outcome: { score: 50, score_range: [-100, 100], success: false },
      turns: ['look around', 'open door', 'heat the water'].map((text, t) => ({
        t, model: 'gpt-5', action: { type: 'tool', tool: 'env', text },
        observation: t === 2 ? 'No known action matches that input.' : 'You see a kitchen.',
      })),
    };
    const byCode = openDatabase(join(tempDir(), 'code.db'));
    const byYaml = openDatabase(join(tempDir(), 'yaml.db'));
    const a = importEpisode(byCode, sw);
    const b = importEpisode(byYaml, sw, loadExpectedSteps('mtrouter-yaml'));
    const n = (db: Db, id: number) => db.prepare('SELECT expected_steps FROM episodes WHERE id = ?').pluck().get(id);
    expect(n(byCode, a)).toBe(27);
    expect(n(byYaml, b)).toBe(38);
    // One high error at t = 2: p = 3/N ≤ 0.3, so w = 0.3 and penalty = 0.3/N (above the floor 0.2/N); S_norm = 0.75.
    expect(storedTargets(byCode, a)[0]?.s_tilde).toBeCloseTo(0.75 - 0.3 / 27, 12);
    expect(storedTargets(byYaml, b)[0]?.s_tilde).toBeCloseTo(0.75 - 0.3 / 38, 12);
    expect(episodeTargets(byYaml, b).turns[0]?.s_tilde).toBeCloseTo(0.75 - 0.3 / 38, 12);
    byCode.close();
    byYaml.close();
  });
});

describe('routelens import --expected-steps', () => {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const routelens = (...args: string[]) =>
    spawnSync(process.execPath, [join(root, 'bin', 'routelens.mjs'), ...args], { encoding: 'utf8', cwd: root, timeout: 60_000 });
  const example = join(root, 'fixtures', 'canonical', 'example.jsonl');

  it('stores the switched N, which `analyze targets` then uses', () => {
    const db = join(tempDir(), 'cli.db');
    const imp = routelens('import', example, '--db', db, '--expected-steps', 'mtrouter-yaml');
    expect(imp.status, imp.stderr).toBe(0);
    const targets = routelens('analyze', 'targets', '--db', db, '--episode', 'melt_3_run1', '--json');
    expect(targets.status, targets.stderr).toBe(0);
    const conn = openDatabase(db);
    const row = conn.prepare("SELECT id, expected_steps FROM episodes WHERE ext_id = 'melt_3_run1'").get() as { id: number; expected_steps: number };
    expect(row.expected_steps).toBe(32);
    expect(JSON.parse(targets.stdout).turns.map((t: { s_tilde: number }) => t.s_tilde)).toEqual(storedTargets(conn, row.id).map((t) => t.s_tilde));
    conn.close();
  });

  it('a wrong table file is one line, exit 1, and creates no database', () => {
    const dir = tempDir();
    const bad = join(dir, 'n.yaml');
    writeFileSync(bad, 'aec:\n  expected_steps:\n    hle:\n      Math: eight\n');
    const db = join(dir, 'never.db');
    const r = routelens('import', example, '--db', db, '--expected-steps', bad);
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/n\.yaml:4: aec\.expected_steps\.hle\.Math: /)]);
    expect(existsSync(db)).toBe(false);
  });
});
