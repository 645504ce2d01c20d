import { closeSync, copyFileSync, mkdirSync, openSync, readdirSync, readFileSync, writeFileSync, ftruncateSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { CanonicalEpisode } from '../../shared/canonical.ts';
import { useTempDir } from '../testing/tmp.ts';
import { actionOf, miniSweAgentImporter, repoOf } from './miniSweAgent.ts';
import { head } from './testing.ts';
import { ImportError } from './types.ts';

const fixtures = fileURLToPath(new URL('../../fixtures/', import.meta.url));
const runDir = join(fixtures, 'samples/mini-swe-agent');
const trajOf = (id: string): string => join(runDir, 'trajs', id, `${id}.traj.json`);
const legacy = join(fixtures, 'samples/mtrouter/local.traj.json');
const router = join(fixtures, 'samples/mtrouter/router.traj.json');
const tempDir = useTempDir();

async function read(file: string, ctx: { root?: string; runName?: string } = {}): Promise<{ episode: CanonicalEpisode; warnings: string[] }> {
  const warnings: string[] = [];
  const episodes: CanonicalEpisode[] = [];
  const context = { root: ctx.root ?? file, runName: ctx.runName, warn: (m: string) => warnings.push(m) };
  for await (const ep of miniSweAgentImporter.read(file, context)) episodes.push(ep);
  expect(episodes).toHaveLength(1);
  return { episode: episodes[0] as CanonicalEpisode, warnings };
}

async function rejection(file: string): Promise<ImportError> {
  const yielded: CanonicalEpisode[] = [];
  try {
    for await (const ep of miniSweAgentImporter.read(file, { root: file, warn: () => {} })) yielded.push(ep);
  } catch (err) {
    expect(yielded).toEqual([]);
    if (err instanceof ImportError) return err;
    throw err;
  }
  throw new Error(`${file} was not rejected`);
}

/** 1-based line of the first occurrence of `needle` in a file. */
const lineOf = (text: string, needle: string): number => text.slice(0, text.indexOf(needle)).split('\n').length;

/** A copy of a real trajectory, edited, in a run folder of its own. */
function variant(id: string, edit: (traj: { messages: Record<string, unknown>[] } & Record<string, unknown>) => void): string {
  const file = join(tempDir(), 'run', 'trajs', id, `${id}.traj.json`);
  mkdirSync(dirname(file), { recursive: true });
  const traj = JSON.parse(readFileSync(trajOf(id), 'utf8')) as { messages: Record<string, unknown>[] } & Record<string, unknown>;
  edit(traj);
  writeFileSync(file, JSON.stringify(traj, null, 2));
  return file;
}

describe('mini-swe-agent importer: detection', () => {
  it('claims every sample, by content', () => {
    for (const file of [trajOf('django__django-12143'), trajOf('psf__requests-2317'), legacy, router]) {
      expect(miniSweAgentImporter.detect(head(file), 'x.traj.json'), file).toBe(true);
      expect(miniSweAgentImporter.detect(head(file), 'renamed.json'), file).toBe(true);
    }
  });

  it('uses the name only when `info` is so long that `messages` is past the head', () => {
    const cut = `{\n  "info": {\n    "exit_status": "Submitted",\n    "submission": "${'x'.repeat(70_000)}`.slice(0, 64 * 1024);
    expect(miniSweAgentImporter.detect(cut, 'a.traj.json')).toBe(true);
    expect(miniSweAgentImporter.detect(cut, 'a.json')).toBe(false);
    expect(miniSweAgentImporter.detect('{"trajectory_format": "mini-agentic-router-1", "messages": [', 'a.json')).toBe(true);
  });

  it('leaves other formats and random JSON alone, whatever the name', () => {
    const canonical = readFileSync(join(fixtures, 'canonical/example.jsonl'), 'utf8').split('\n')[0] ?? '';
    const others = [
      canonical,
      '{"a": 1, "b": [1, 2, {"messages": [], "info": {}}]}',
      '{"trajectory_format": "swe-agent-1", "messages": [], "info": {}}',
      '{"environment": "main", "trajectory": [], "info": {"exit_status": "submitted"}}',
      '{}',
      '[1, 2, 3]',
      '[{"role": "user"}]',
      '[{"role": "narrator", "content": "x"}]',
      'not json at all',
      '',
      readFileSync(join(fixtures, 'broken/mini-swe-agent-binary.traj.json')).toString('utf8'),
    ];
    for (const text of others) expect(miniSweAgentImporter.detect(text, 'x.traj.json'), text.slice(0, 60)).toBe(false);
  });
});

describe('mini-swe-agent importer: real episodes', () => {
  // The PROVENANCE.md table: assistant turns and info.model_stats.instance_cost (= the per-turn sum).
  const table: [string, number, number, boolean][] = [
    ['django__django-12143', 27, 0.1746, true],
    ['pydata__xarray-6938', 34, 0.3099, false],
    ['astropy__astropy-7166', 24, 0.1783, true],
    ['psf__requests-2317', 33, 0.2754, false],
  ];
  for (const [id, turns, cost, resolved] of table) {
    it(`${id}: ${turns} turns, $${cost}, resolved ${resolved}`, async () => {
      const { episode, warnings } = await read(trajOf(id));
      expect(warnings).toEqual([]);
      expect(episode.episode_id).toBe(id);
      expect(episode.run).toBe('mini-swe-agent');
      expect(episode.turns).toHaveLength(turns);
      expect(episode.turns.reduce((sum, t) => sum + (t.cost_usd ?? 0), 0)).toBeCloseTo(cost, 4);
      expect(episode.cost_usd).toBeCloseTo(cost, 4);
      // The outcome explained as the log says it: read here from the files themselves, not from the importer.
      const report = JSON.parse(readFileSync(join(runDir, 'logs', id, 'report.json'), 'utf8')) as {
        tests_status: Record<string, { success: string[]; failure: string[] }>;
      };
      const traj = JSON.parse(readFileSync(trajOf(id), 'utf8')) as { info: { submission: string } };
      expect(episode.outcome).toEqual({
        score: resolved ? 1 : 0, score_range: [0, 1], success: resolved, exit: 'Submitted',
        answer: traj.info.submission,
        scorers: [{
          name: 'SWE-bench harness', source: `logs/${id}/report.json`, value: resolved,
          metadata: { patch_is_None: false, patch_exists: true, patch_successfully_applied: true },
        }],
        tests: Object.entries(report.tests_status).map(([group, s]) => ({ group, passed: s.success, failed: s.failure })),
      });
      expect(episode.task.id).toBe(id);
      expect(episode.task.type).toBe('swe');
      expect(episode.task.text).toMatch(/^<pr_description>/);
      expect(episode.budget).toEqual({ mode: null, usd: 3, max_turns: 250 });
      expect(episode.turns.at(-1)?.action.type).toBe('submit');
      for (const turn of episode.turns) {
        expect(turn).not.toHaveProperty('errors');
        expect(turn.latency_ms).toBeNull();
        expect(turn.tokens?.in).toBeGreaterThan(0);
      }
    });
  }

  it('the harness report by hand: astropy__astropy-7166 fixed its one failing test and kept the 6 passing; the patch is the submission', async () => {
    const { episode } = await read(trajOf('astropy__astropy-7166'));
    expect(episode.outcome.tests?.map((g) => [g.group, g.passed.length, g.failed.length])).toEqual([
      ['FAIL_TO_PASS', 1, 0], ['PASS_TO_PASS', 6, 0], ['FAIL_TO_FAIL', 0, 0], ['PASS_TO_FAIL', 0, 0],
    ]);
    expect(episode.outcome.tests?.[0]?.passed).toEqual(['astropy/utils/tests/test_misc.py::test_inherit_docstrings']);
    expect(episode.outcome.answer).toMatch(/^diff --git a\/astropy\/utils\/misc\.py b\/astropy\/utils\/misc\.py\n/);
    expect(episode.outcome.target).toBeUndefined();
    // psf__requests-2317 was not resolved: its 8 FAIL_TO_PASS tests pass, but one of 133 PASS_TO_PASS tests now fails.
    const failed = (await read(trajOf('psf__requests-2317'))).episode.outcome;
    expect(failed.scorers?.[0]?.value).toBe(false);
    expect(failed.tests?.slice(0, 2).map((g) => [g.group, g.passed.length, g.failed.length])).toEqual([['FAIL_TO_PASS', 8, 0], ['PASS_TO_PASS', 132, 1]]);
  });

  it('Portkey: model without vendor prefix, cost from extra.cost, tokens from usage', async () => {
    const { episode } = await read(trajOf('django__django-12143'));
    expect(new Set(episode.turns.map((t) => t.model))).toEqual(new Set(['gemini-3-pro-preview']));
    expect(episode.policy).toEqual({ name: '@google/gemini-3-pro-preview', kind: 'single-model', train_step: null });
    expect(episode.task.category).toBe('django');
    const [first] = episode.turns;
    expect(first?.tokens).toEqual({ in: 1963, out: 39, cached: 0 });
    expect(first?.cost_usd).toBeCloseTo(0.004394, 6);
  });

  it('OpenRouter: vendor-prefixed model, cost from usage.cost', async () => {
    const { episode } = await read(trajOf('astropy__astropy-7166'));
    expect(new Set(episode.turns.map((t) => t.model))).toEqual(new Set(['google/gemini-3-pro-preview']));
    expect(episode.policy?.name).toBe('google/gemini-3-pro-preview');
    expect(episode.task.category).toBe('astropy');
    const [first] = episode.turns;
    expect(first?.tokens).toEqual({ in: 1327, out: 150, cached: 0 });
    expect(first?.cost_usd).toBe(0.004454);
    expect(first?.propensity).toBeNull();
    expect(first?.candidates).toBeNull();
  });

  it('turns: the whole reply as action text, bash as the tool, the next message as observation', async () => {
    const { episode } = await read(trajOf('psf__requests-2317'));
    const [first] = episode.turns;
    expect(first?.action.type).toBe('tool');
    expect(first?.action.tool).toBe('bash');
    expect(first?.action.text).toMatch(/^THOUGHT: [\s\S]*```bash\n[\s\S]+\n```/);
    expect(first?.observation).toMatch(/^<returncode>\d+<\/returncode>/);
    // A reply with more than one block is not run: mini-swe-agent answers with a format error.
    const unrun = episode.turns.filter((t) => t.action.type === 'message');
    expect(unrun).toHaveLength(1);
    expect(unrun[0]?.action.tool).toBeNull();
    expect(unrun[0]?.observation).toMatch(/EXACTLY ONE action/);
    expect(episode.turns.at(-1)?.observation).toMatch(/^diff --git/);
  });

  it('a run name given by the user wins', async () => {
    const { episode } = await read(trajOf('astropy__astropy-7166'), { runName: 'gemini-swebench' });
    expect(episode.run).toBe('gemini-swebench');
  });
});

describe('mini-swe-agent importer: the log’s totals and every message', () => {
  const shared = fileURLToPath(new URL('../../../shared/data/mini-swe-agent/trajs/', import.meta.url));
  const sharedIds = readdirSync(shared).filter((n) => n.includes('__'));

  it('info.model_stats is the log total of each of the 30 real episodes', async () => {
    expect(sharedIds).toHaveLength(30);
    for (const id of sharedIds) {
      const traj = JSON.parse(readFileSync(join(shared, id, `${id}.traj.json`), 'utf8')) as { info: { model_stats: { instance_cost: number; api_calls: number } } };
      const { episode } = await read(join(shared, id, `${id}.traj.json`));
      const stats = traj.info.model_stats;
      expect(episode.log_totals, id).toEqual({ source: 'info.model_stats', requests: stats.api_calls, cost_usd: stats.instance_cost });
      expect(episode.turns).toHaveLength(stats.api_calls);
    }
  });

  it('every message lands: system prompt, task, one observation per reply; no other message in the real files', async () => {
    for (const id of sharedIds) {
      const file = join(shared, id, `${id}.traj.json`);
      const messages = (JSON.parse(readFileSync(file, 'utf8')) as { messages: { role: string; content: string }[] }).messages;
      // Counted in the files: system, task, then (assistant, user) pairs; every user message after a reply is its observation.
      expect(messages.slice(2).map((m) => m.role).join(' '), id).toBe(Array(messages.length / 2 - 1).fill('assistant user').join(' '));
      const { episode } = await read(file);
      expect(episode.system_prompt).toBe(messages[0]?.content);
      expect(episode.task.text).toBe(messages[1]?.content);
      expect(episode.turns.map((t) => t.observation)).toEqual(messages.slice(3).filter((_, i) => i % 2 === 0).map((m) => m.content));
      expect(episode.turns.every((t) => t.inputs == null)).toBe(true);
      expect(episode.final_messages).toBeNull();
    }
  });

  it('a system message between replies is the next turn’s input, after the last reply a final message (not dropped)', async () => {
    // mini-swe-agent 1.x writes none; an agent built on it (or MTRouter's) may inject one: same file otherwise.
    const file = variant('astropy__astropy-7166', (traj) => {
      traj.messages.splice(4, 0, { role: 'system', content: 'Reminder: 20 steps left.' });
      traj.messages.splice(3, 0, { role: 'user', content: 'Also check the docs.' });
      traj.messages.push({ role: 'system', content: 'Step limit reached.' });
    });
    const { episode } = await read(file);
    expect(episode.turns[0]?.inputs).toBeNull();
    expect(episode.turns[1]?.inputs).toEqual([{ role: 'system', text: 'Reminder: 20 steps left.' }]);
    expect(episode.turns[0]?.observation).toMatch(/^Also check the docs\.\n\n<returncode>/);
    expect(episode.final_messages).toEqual([{ role: 'system', text: 'Step limit reached.' }]);
  });

  it('a second user message before the first reply is the first turn’s input', async () => {
    const file = variant('astropy__astropy-7166', (traj) => {
      traj.messages.splice(2, 0, { role: 'user', content: 'Use Python 3.8 syntax only.' });
    });
    const { episode } = await read(file);
    expect(episode.task.text).toMatch(/^<pr_description>/);
    expect(episode.turns[0]?.inputs).toEqual([{ role: 'user', text: 'Use Python 3.8 syntax only.' }]);
  });
});

describe('mini-swe-agent importer: legacy array and MTRouter routing fields', () => {
  it('legacy bare array: model unknown with one warning, episode id from the name', async () => {
    const { episode, warnings } = await read(legacy);
    expect(warnings).toEqual(['legacy bare message array: model unknown']);
    expect(episode.episode_id).toBe('local');
    expect(episode.run).toBe('mtrouter');
    expect(episode.turns.map((t) => [t.model, t.action.type])).toEqual([
      ['unknown', 'tool'],
      ['unknown', 'submit'],
    ]);
    expect(episode.turns[0]?.observation).toBe('<returncode>0</returncode>\n<output>\nhello world\n</output>');
    expect(episode.turns[1]?.tokens).toBeNull();
    expect(episode.outcome).toEqual({ score: null, score_range: null, success: null, exit: null, answer: null });
    expect(episode.task.text).toMatch(/^Please solve this issue/);
  });

  it('router file: routed model, propensity and q-values per turn, router policy', async () => {
    const { episode, warnings } = await read(router);
    expect(warnings).toEqual([]);
    expect(episode.episode_id).toBe('octo__tinyrepo-7');
    expect(episode.task.category).toBe('tinyrepo');
    expect(episode.policy).toEqual({ name: 'LearnedRouter', kind: 'router', train_step: null });
    expect(episode.budget).toEqual({ mode: null, usd: 1.5, max_turns: 50 });
    expect(episode.turns.map((t) => t.model)).toEqual([
      'openai/gpt-5',
      'deepseek/deepseek-v3.2',
      // No top-level fields: the older `extra.router_info.selected_model`.
      'deepseek/deepseek-v3.2',
      'openai/gpt-5',
    ]);
    expect(episode.turns.map((t) => t.propensity)).toEqual([0.62, 0.45, 0.5, 0.71]);
    expect(episode.turns[0]?.candidates).toEqual({ 'openai/gpt-5': 0.41, 'deepseek/deepseek-v3.2': 0.38 });
    expect(episode.turns[2]?.candidates).toBeNull();
    expect(episode.turns[1]?.tokens).toEqual({ in: 1530, out: 95, cached: 1024 });
    expect(episode.turns.reduce((s, t) => s + (t.cost_usd ?? 0), 0)).toBeCloseTo(0.00493, 6);
    expect(episode.turns.at(-1)?.action.type).toBe('submit');
  });

  it('q_values without a matching model_pool are dropped with a warning', async () => {
    const file = join(tempDir(), 'r.traj.json');
    const traj = JSON.parse(readFileSync(router, 'utf8')) as { messages: { router_info?: { model_pool?: string[] } }[] };
    const first = traj.messages[2];
    if (first?.router_info) first.router_info.model_pool = ['openai/gpt-5'];
    writeFileSync(file, JSON.stringify(traj));
    const { episode, warnings } = await read(file);
    expect(episode.turns[0]?.candidates).toBeNull();
    expect(warnings).toEqual(['q_values without a model_pool of the same length; candidates left out']);
  });
});

describe('mini-swe-agent importer: run folders', () => {
  it('<out>/<id>/<id>.traj.json names the run after <out>; a flat file after its folder', async () => {
    const nested = variant('astropy__astropy-7166', () => {});
    expect((await read(nested)).episode.run).toBe('run');
    const flat = join(tempDir(), 'flat-run', 'astropy__astropy-7166.traj.json');
    mkdirSync(dirname(flat), { recursive: true });
    copyFileSync(trajOf('astropy__astropy-7166'), flat);
    const { episode } = await read(flat);
    expect(episode.run).toBe('flat-run');
    expect(episode.outcome.success).toBeNull();
  });

  it('labels are found up to the imported folder (here above the run) and in the run folder', async () => {
    const file = variant('psf__requests-2317', () => {});
    const run = dirname(dirname(dirname(file)));
    copyFileSync(join(runDir, 'results_summary.csv'), join(run, 'results_summary.csv'));
    for (const root of [file, join(run, 'trajs'), dirname(run)]) {
      const { episode } = await read(file, { root });
      // A run-level file says only resolved or not: no tests, no patch checks.
      expect(episode.outcome, root).toMatchObject({ score: 0, score_range: [0, 1], success: false, exit: 'Submitted' });
      expect(episode.outcome.scorers, root).toEqual([{ name: 'SWE-bench harness', source: 'results_summary.csv', value: false, metadata: null }]);
      expect(episode.outcome.tests, root).toBeNull();
    }
  });
});

describe('mini-swe-agent importer: bad files', () => {
  const broken = (name: string): string => join(fixtures, 'broken', name);

  it('truncated JSON: the last line', async () => {
    const file = broken('mini-swe-agent-truncated.traj.json');
    const err = await rejection(file);
    const lines = readFileSync(file, 'utf8').split('\n').length;
    expect(err.message.startsWith(`${file}:${lines}: invalid JSON`)).toBe(true);
  });

  it('messages not an array: the line of messages', async () => {
    const file = broken('mini-swe-agent-messages-not-array.traj.json');
    const err = await rejection(file);
    expect(err.line).toBe(lineOf(readFileSync(file, 'utf8'), '"messages"'));
    expect(err.message.startsWith(`${file}:${err.line}: messages: `)).toBe(true);
    expect(err.message).toMatch(/expected array/);
  });

  it('assistant content a number: the line of that content', async () => {
    const file = broken('mini-swe-agent-content-number.traj.json');
    const err = await rejection(file);
    expect(err.message).toBe(`${file}:${lineOf(readFileSync(file, 'utf8'), '"content": 42')}: messages[2].content: expected a string or an array of text parts`);
  });

  it('binary garbage: line 1, not UTF-8', async () => {
    const file = broken('mini-swe-agent-binary.traj.json');
    const err = await rejection(file);
    expect(err.message).toBe(`${file}:1: not valid UTF-8`);
  });

  it('a wrong type deep in a real file names its path and line', async () => {
    const file = variant('pydata__xarray-6938', (traj) => {
      const usage = (traj.messages[6]?.extra as { response: { usage: Record<string, unknown> } }).response.usage;
      usage.prompt_tokens = 'many';
    });
    const err = await rejection(file);
    expect(err.reason).toMatch(/^messages\[6\]\.extra\.response\.usage\.prompt_tokens: /);
    const text = readFileSync(file, 'utf8');
    expect(err.line).toBe(lineOf(text, '"prompt_tokens": "many"'));
  });

  it('a turn the canonical schema refuses is placed on its assistant message', async () => {
    const file = variant('astropy__astropy-7166', (traj) => {
      traj.messages[4] = { ...traj.messages[4], model_name: 'm'.repeat(400) };
    });
    const err = await rejection(file);
    expect(err.reason).toMatch(/^turns\[1\]\.model: /);
    // messages[4] opens on its own `    {` line (JSON.stringify with 2 spaces: the elements of a top-level array).
    const openings = [...readFileSync(file, 'utf8').matchAll(/^ {4}\{$/gm)].map((m) => m.index);
    const text = readFileSync(file, 'utf8');
    expect(err.line).toBe(text.slice(0, openings[4]).split('\n').length);
  });

  it('no assistant messages, and other top-level values, are refused', async () => {
    const dir = tempDir();
    const empty = join(dir, 'empty.traj.json');
    writeFileSync(empty, JSON.stringify({ info: {}, messages: [{ role: 'system', content: 'hi' }] }, null, 2));
    expect((await rejection(empty)).message).toBe(`${empty}:3: no assistant messages: the trajectory has no turns`);
    const scalar = join(dir, 'scalar.traj.json');
    writeFileSync(scalar, '\n"just a string"\n');
    expect((await rejection(scalar)).message).toMatch(/^.*scalar\.traj\.json:1: expected a mini-swe-agent trajectory/);
  });

  it('a file over the size limit is refused before it is read', async () => {
    const file = join(tempDir(), 'huge.traj.json');
    const fd = openSync(file, 'w');
    ftruncateSync(fd, 513 * 1024 * 1024); // sparse: no disk used
    closeSync(fd);
    const err = await rejection(file);
    expect(err.message).toMatch(/^.*huge\.traj\.json:1: file is \d+ bytes; .*limited to/);
  });
});

describe('mini-swe-agent actions and task categories', () => {
  it('reads the action the way mini-swe-agent does', () => {
    expect(actionOf('THOUGHT: look\n\n```bash\nls -la\n```')).toEqual({ type: 'tool', tool: 'bash', text: 'THOUGHT: look\n\n```bash\nls -la\n```' });
    expect(actionOf('```bash\necho MINI_SWE_AGENT_FINAL_OUTPUT\n```').type).toBe('submit');
    expect(actionOf('```bash\n  echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff\n```').type).toBe('submit');
    expect(actionOf('```bash\ngrep COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT x\n```').type).toBe('tool');
    expect(actionOf('no block here').type).toBe('message');
    expect(actionOf('```bash\nls\n```\nand\n```bash\npwd\n```').type).toBe('message');
    expect(actionOf('```python\nprint(1)\n```').type).toBe('message');
  });

  it('takes the repository from SWE-bench ids', () => {
    expect(repoOf('django__django-12143')).toBe('django');
    expect(repoOf('scikit-learn__scikit-learn-12585')).toBe('scikit-learn');
    expect(repoOf('sphinx-doc__sphinx-10435')).toBe('sphinx');
    expect(repoOf('local')).toBeNull();
  });
});
