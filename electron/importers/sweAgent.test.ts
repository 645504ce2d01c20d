import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../db/database.ts';
import { head, readEpisodes, readOneEpisode, rejectionOf } from './testing.ts';
import { useTempDir } from '../testing/tmp.ts';
import { importPaths } from './pipeline.ts';
import { detectImporter } from './pipeline.ts';
import { sweAction, sweAgentImporter } from './sweAgent.ts';

const fixtures = fileURLToPath(new URL('../../fixtures/', import.meta.url));
const V1_DIR = 'gpt4__swe-agent-test-repo__default_from_url__t-0.00__p-0.95__c-3.00__install-1';
const V0_DIR = 'gpt4__swe-bench-dev-easy_first_only__default__t-0.00__p-0.95__c-3.00__install-1';
const v1 = join(fixtures, 'samples/swe-agent', V1_DIR, '6e44b9__sweagenttestrepo-1c2844.traj');
const v0 = join(fixtures, 'samples/swe-agent', V0_DIR, 'pydicom__pydicom-1458.traj');
const tempDir = useTempDir();

const read = (file: string, runName?: string) => readEpisodes(sweAgentImporter, file, runName);

const readOne = (file: string, runName?: string) => readOneEpisode(sweAgentImporter, file, runName);

const rejection = (file: string) => rejectionOf(sweAgentImporter, file);

/** A copy of a real trajectory, edited, in a run directory of its own. */
function variant(source: string, dir: string, edit: (traj: Record<string, unknown>) => void, name = basename(source)): string {
  const runDir = join(tempDir(), dir);
  mkdirSync(runDir, { recursive: true });
  const traj = JSON.parse(readFileSync(source, 'utf8')) as Record<string, unknown>;
  edit(traj);
  const file = join(runDir, name);
  writeFileSync(file, JSON.stringify(traj, null, 2));
  return file;
}

describe('SWE-agent importer: real trajectories', () => {
  it('v1: one turn per trajectory step, model from replay_config, logged cost on the episode only', async () => {
    const ep = await readOne(v1);
    expect(ep.run).toBe(V1_DIR);
    expect(ep.episode_id).toBe('6e44b9__sweagenttestrepo-1c2844');
    expect(ep.task).toMatchObject({ id: 'SWE-agent__test-repo-i1', type: 'swe' });
    expect(ep.task.text).toContain('SyntaxError: invalid syntax');
    expect(ep.turns.map((t) => t.model)).toEqual(Array(5).fill('gpt-4o'));
    expect(ep.turns.map((t) => [t.action.type, t.action.tool])).toEqual([
      ['tool', 'find_file'],
      ['tool', 'open'],
      ['tool', 'edit'],
      ['tool', 'python3'],
      ['submit', 'submit'],
    ]);
    expect(ep.turns[3]?.observation).toBe('8.2');
    // No per-step numbers are invented: the log's total is the episode's.
    expect(ep.turns.every((t) => t.tokens == null && t.cost_usd == null && t.latency_ms == null)).toBe(true);
    expect(ep.cost_usd).toBeCloseTo(0.01952, 6);
    expect(ep.budget?.usd).toBe(3);
    expect(ep.outcome).toMatchObject({ score: null, success: null, exit: 'submitted' });
    // The real file's patch is the answer; nothing beside it grades the run, so there is no scorer and no target.
    const logged = JSON.parse(readFileSync(v1, 'utf8')) as { info: { submission: string } };
    expect(ep.outcome.answer).toBe(logged.info.submission);
    // As logged, with its Windows line ends.
    expect(ep.outcome.answer).toMatch(/^\r\ndiff --git a\/tests\/missing_colon\.py b\/tests\/missing_colon\.py\r\n/);
    expect(ep.outcome.scorers ?? null).toBeNull();
    expect(ep.outcome.target ?? null).toBeNull();
  });

  it('v0.x: model from the sibling args.yaml, demonstration left out', async () => {
    const ep = await readOne(v0);
    expect(ep.run).toBe(V0_DIR);
    expect(ep.episode_id).toBe('pydicom__pydicom-1458');
    expect(ep.turns).toHaveLength(12);
    expect(new Set(ep.turns.map((t) => t.model))).toEqual(new Set(['gpt4']));
    expect(ep.turns[0]?.action).toEqual({ type: 'tool', tool: 'create', text: 'create reproduce_bug.py' });
    expect(ep.turns[2]?.observation).toContain('Traceback (most recent call last)');
    expect(ep.turns.at(-1)?.action.type).toBe('submit');
    expect(ep.cost_usd).toBeCloseTo(1.26719, 6);
    expect(ep.outcome.exit).toBe('submitted');
    // The task is the real issue, not the injected demonstration.
    expect(ep.task.text).toContain('pydicom');
    expect(ep.task.text).not.toMatch(/^Here is a demonstration/);
  });

  it("keeps each step's thought as the turn's reasoning, apart from the command", async () => {
    const ep = await readOne(v1);
    expect(ep.turns[0]?.reasoning).toMatch(/^To start addressing this issue, I will first search for the `missing_colon\.py` file/);
    expect(ep.turns[0]?.action.text).toBe('find_file missing_colon.py');
    const old = await readOne(v0);
    expect(old.turns[0]?.reasoning).toMatch(/^First, I'll create a new Python script to reproduce the bug/);
    expect(old.turns[0]?.reasoning).not.toMatch(/\s$/);
    expect(old.turns.every((t) => t.reasoning && !t.reasoning.includes('```'))).toBe(true);
  });

  it('takes --run over the directory name', async () => {
    expect((await readOne(v0, 'mine')).run).toBe('mine');
  });
});

describe('SWE-agent importer: the log’s totals and every message', () => {
  it('info.model_stats is the log total: 5 and 12 API calls, one per step', async () => {
    expect((await readOne(v1)).log_totals).toEqual({
      source: 'info.model_stats', requests: 5, tokens: { in: 7141, out: 243 }, cost_usd: 0.019520000000000006,
    });
    expect((await readOne(v0)).log_totals).toEqual({
      source: 'info.model_stats', requests: 12, tokens: { in: 122612, out: 1369 }, cost_usd: 1.26719,
    });
  });

  it('the system prompt, the task, the demonstration as the first call’s input; observations stay the steps’', async () => {
    // Counted in the files: v1's history is system, task, then (assistant, tool) × 5; v0.x's is system, the
    // demonstration (is_demo), task, then (assistant, user) × 12. No other message lies between the steps.
    const ep = await readOne(v1);
    expect(ep.system_prompt).toMatch(/^SETTING: You are an autonomous programmer/);
    expect(ep.turns.flatMap((t) => t.inputs ?? [])).toEqual([]);
    expect(ep.final_messages).toBeNull();
    const old = await readOne(v0);
    expect(old.system_prompt).toMatch(/^SETTING: You are an autonomous programmer/);
    expect(old.turns[0]?.inputs).toHaveLength(1);
    expect(old.turns[0]?.inputs?.[0]?.role).toBe('user');
    expect(old.turns[0]?.inputs?.[0]?.text).toMatch(/^Here is a demonstration of how to correctly accomplish this task/);
    expect(old.turns.slice(1).every((t) => t.inputs == null)).toBe(true);
    expect(old.final_messages).toBeNull();
  });
});

describe('SWE-agent importer: run-level model and outcome sources', () => {
  it('reads replay_config written as a JSON string (newer SWE-agent)', async () => {
    const file = variant(v1, 'x__y', (t) => {
      t.replay_config = JSON.stringify(t.replay_config);
    });
    expect((await readOne(file)).turns[0]?.model).toBe('gpt-4o');
  });

  it('falls back to the run directory prefix without replay_config or args.yaml', async () => {
    const file = variant(v0, 'claude-sonnet-4__swe-bench__default', () => {});
    expect((await readOne(file)).turns[0]?.model).toBe('claude-sonnet-4');
  });

  it('uses "unknown" with a warning when nothing names the model', async () => {
    const file = variant(v0, 'plain', () => {});
    const { episodes, warnings } = await read(file);
    expect(episodes[0]?.turns[0]?.model).toBe('unknown');
    expect(warnings.join()).toMatch(/no model name/);
  });

  it('takes resolved / unresolved from a sibling SWE-bench results.json or report.json', async () => {
    const resolved = variant(v0, 'gpt4__a', () => {});
    writeFileSync(join(dirname(resolved), 'results.json'), JSON.stringify({ resolved: ['pydicom__pydicom-1458'], unresolved: [] }));
    expect((await readOne(resolved)).outcome).toMatchObject({ score: 1, score_range: [0, 1], success: true });

    expect((await readOne(resolved)).outcome.scorers).toEqual([{ name: 'SWE-bench harness', source: 'results.json', value: true, metadata: null }]);

    const failed = variant(v0, 'gpt4__b', () => {});
    writeFileSync(join(dirname(failed), 'report.json'), JSON.stringify({
      'pydicom__pydicom-1458': {
        resolved: false, patch_successfully_applied: true,
        tests_status: { FAIL_TO_PASS: { success: [], failure: ['tests/test_x.py::test_fix'] }, PASS_TO_PASS: { success: ['tests/test_x.py::test_old'], failure: [] } },
      },
    }));
    const graded = (await readOne(failed)).outcome;
    expect(graded).toMatchObject({ score: 0, success: false, exit: 'submitted' });
    expect(graded.scorers).toEqual([{ name: 'SWE-bench harness', source: 'report.json', value: false, metadata: { patch_successfully_applied: true } }]);
    expect(graded.tests).toEqual([
      { group: 'FAIL_TO_PASS', passed: [], failed: ['tests/test_x.py::test_fix'] },
      { group: 'PASS_TO_PASS', passed: ['tests/test_x.py::test_old'], failed: [] },
    ]);

    const unnamed = variant(v0, 'gpt4__c', () => {});
    writeFileSync(join(dirname(unnamed), 'results.json'), JSON.stringify({ resolved: ['other'] }));
    expect((await readOne(unnamed)).outcome.success).toBeNull();
  });

  it('uses the non-demo assistant messages of history when trajectory is empty', async () => {
    const file = variant(v0, 'gpt4__h', (t) => {
      t.trajectory = [];
      t.history = [
        { role: 'system', content: 'setup', agent: 'primary' },
        { role: 'assistant', content: 'demo reply', action: 'ls\n', agent: 'primary', is_demo: true },
        { role: 'user', content: 'the issue', agent: 'primary' },
        { role: 'assistant', content: 'thinking\n```\nopen a.py\n```', thought: 'thinking', action: 'open a.py\n', agent: 'primary' },
        { role: 'user', content: '[File: a.py]', agent: 'primary' },
        { role: 'assistant', content: [{ type: 'text', text: 'done' }], thought: 'done', agent: 'primary' },
      ];
    });
    const ep = await readOne(file);
    expect(ep.turns.map((t) => [t.action.tool, t.observation])).toEqual([
      ['open', '[File: a.py]'],
      ['done', null],
    ]);
    // The thought is reasoning beside a parsed command; a reply without one keeps its whole text as the action.
    expect(ep.turns.map((t) => [t.reasoning ?? null, t.action.text])).toEqual([
      ['thinking', 'open a.py'],
      [null, 'done'],
    ]);
    expect(ep.task.text).toBe('the issue');
  });
});

describe('SWE-agent importer: actions', () => {
  it('names the tool by the command’s first word', () => {
    expect(sweAction('edit 1:1\nfoo\nend_of_edit\n')).toEqual({ type: 'tool', tool: 'edit', text: 'edit 1:1\nfoo\nend_of_edit' });
    expect(sweAction('submit')).toEqual({ type: 'submit', tool: 'submit', text: 'submit' });
    expect(sweAction('  python -c "print(1)"')).toMatchObject({ tool: 'python' });
    expect(sweAction('')).toEqual({ type: 'message', tool: null, text: '' });
  });
});

describe('SWE-agent importer: detection', () => {
  it('claims real .traj files (v1 and v0.x)', () => {
    expect(sweAgentImporter.detect(head(v1), basename(v1))).toBe(true);
    expect(sweAgentImporter.detect(head(v0), basename(v0))).toBe(true);
    expect(detectImporter(head(v1), basename(v1))?.format).toBe('swe-agent');
  });

  it('does not claim other formats or names', () => {
    const mini = JSON.stringify({ info: { exit_status: 'Submitted' }, messages: [], trajectory_format: 'mini-swe-agent-1' });
    expect(sweAgentImporter.detect(mini, 'task.traj.json')).toBe(false);
    expect(sweAgentImporter.detect('{"trajectory_format": "mini-swe-agent-1", "trajectory": [], "info": {}}', 'x.traj')).toBe(false);
    expect(sweAgentImporter.detect(head(v1), 'renamed.json')).toBe(false);
    expect(sweAgentImporter.detect('{"schema":"routelens/v1","run":"r","episode_id":"e","turns":[]}\n', 'x.traj')).toBe(false);
    const inspect = join(fixtures, 'samples/inspect/2025-05-12T20-27-36-04-00_browser.json');
    expect(sweAgentImporter.detect(head(inspect), basename(inspect))).toBe(false);
    expect(sweAgentImporter.detect('not json', 'x.traj')).toBe(false);
  });
});

describe('SWE-agent importer: broken files', () => {
  it('names the line of a JSON syntax error (truncated file)', async () => {
    const err = await rejection(join(fixtures, 'broken/swe-agent-truncated.traj'));
    expect(err.line).toBe(63);
    expect(err.reason).toMatch(/^invalid JSON/);
  });

  it('names the JSON path and its line for a wrong type', async () => {
    const file = variant(v1, 'gpt4__bad', (t) => {
      (t.trajectory as { action: unknown }[])[2]!.action = 42;
    });
    const err = await rejection(file);
    expect(err.reason).toMatch(/^trajectory\[2\]\.action: .*string/);
    const lines = readFileSync(file, 'utf8').split('\n');
    expect(lines[err.line - 1]).toMatch(/"action": 42/);
  });

  it('rejects a file that is not an object, or has no steps', async () => {
    const dir = tempDir();
    const array = join(dir, 'a.traj');
    writeFileSync(array, '[1, 2]');
    expect((await rejection(array)).reason).toMatch(/expected object/);
    const empty = join(dir, 'b.traj');
    writeFileSync(empty, JSON.stringify({ trajectory: [], history: [], info: {} }));
    expect((await rejection(empty)).reason).toMatch(/no model steps/);
  });
});

describe('SWE-agent importer: through the import pipeline', () => {
  it('stores both real runs with the logged episode cost and unpriced turns', async () => {
    const dir = tempDir();
    const db = openDatabase(join(dir, 's.db'));
    const report = await importPaths(db, [join(fixtures, 'samples/swe-agent')]);
    expect(report.files.map((f) => [f.format, f.status, f.episodes, f.turns])).toEqual([
      ['swe-agent', 'imported', 1, 5],
      ['swe-agent', 'imported', 1, 12],
    ]);
    // args.yaml and all_preds.jsonl are sidecars, not logs.
    expect(report.ignored.map((i) => i.reason)).toEqual([
      expect.stringMatching(/^sidecar of swe-agent logs/),
      expect.stringMatching(/^sidecar of swe-agent logs/),
    ]);
    const rows = db
      .prepare('SELECT ext_id, n_turns, total_cost, logged_cost, exit_reason FROM episodes ORDER BY ext_id')
      .all() as { ext_id: string; n_turns: number; total_cost: number; logged_cost: number; exit_reason: string }[];
    expect(rows.map((r) => [r.ext_id, r.n_turns, r.exit_reason])).toEqual([
      ['6e44b9__sweagenttestrepo-1c2844', 5, 'submitted'],
      ['pydicom__pydicom-1458', 12, 'submitted'],
    ]);
    expect(rows[0]?.total_cost).toBeCloseTo(0.01952, 6);
    expect(rows[1]?.total_cost).toBeCloseTo(1.26719, 6);
    expect(rows[1]?.logged_cost).toBeCloseTo(1.26719, 6);
    expect(db.prepare("SELECT COUNT(*) FROM turns WHERE cost_source <> 'none'").pluck().get()).toBe(0);
    db.close();
  });

  it('reads a copied run directory the same way (args.yaml travels with the file)', async () => {
    const runDir = join(tempDir(), V0_DIR);
    mkdirSync(runDir);
    for (const f of ['pydicom__pydicom-1458.traj', 'args.yaml']) copyFileSync(join(fixtures, 'samples/swe-agent', V0_DIR, f), join(runDir, f));
    const ep = await readOne(join(runDir, 'pydicom__pydicom-1458.traj'));
    expect(ep.turns[0]?.model).toBe('gpt4');
  });
});
