// MTRouter's own trajectories (ScienceWorld and HLE, as its collectors save them) through the mini-swe-agent
// importer: every field the reference parser reads, the routers' records, results.json, and bad copies.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { CanonicalEpisode } from '../../shared/canonical.ts';
import { useTempDir } from '../testing/tmp.ts';
import { miniSweAgentImporter } from './miniSweAgent.ts';
import {
  POOL,
  hle,
  learnedReply,
  mixedReply,
  observation,
  plainReply,
  pythonText,
  scienceWorld,
  writeTrajectory,
} from './mtrouterFiles.testSupport.ts';
import { clearRunResultsCache } from './mtrouterRunFiles.ts';
import { readEpisodes, rejectionOf } from './testing.ts';
import type { ImportError } from './types.ts';

const tempDir = useTempDir();
beforeEach(() => clearRunResultsCache());

async function read(file: string): Promise<{ episode: CanonicalEpisode; warnings: string[] }> {
  const { episodes, warnings } = await readEpisodes(miniSweAgentImporter, file);
  expect(episodes).toHaveLength(1);
  return { episode: episodes[0] as CanonicalEpisode, warnings };
}

const rejection = (file: string): Promise<ImportError> => rejectionOf(miniSweAgentImporter, file);

const lineOf = (text: string, needle: string): number => text.slice(0, text.indexOf(needle)).split('\n').length;
const text = (command: string): string => `THOUGHT: next.\n\n\`\`\`text\n${command}\n\`\`\``;
const call = (json: object): string => `I will use a tool.\n<tool_call>${JSON.stringify(json)}</tool_call>`;

/** A ScienceWorld episode of the β-mixed router (greedy GPT-5, β 0.5), ending with the finish word. */
function boil(variation: number, finalScore: number | null): ReturnType<typeof scienceWorld> {
  return scienceWorld('boil', variation, 1, finalScore, [
    mixedReply(text('look around'), 'openai/gpt-5', 'openai/gpt-5', 0.5),
    observation('<observation>\nThis room is called the kitchen.\n</observation>'),
    mixedReply(text('open door to hallway'), 'minimax/minimax-m2', 'openai/gpt-5', 0.5),
    observation('<observation>\nThe door is now open.\n</observation>'),
    mixedReply(text('?navigation'), 'openai/gpt-oss-120b', 'openai/gpt-5', 0.5),
    observation('<observation>\n[Query Result] navigation actions (1 found):\n  - go to hallway\n</observation>'),
    mixedReply(text('focus on water'), 'openai/gpt-5', 'openai/gpt-5', 0.5),
    observation('<observation>\nYou focus on the water.\n</observation>'),
    mixedReply(text('wait1'), 'deepseek/deepseek-v3.2', 'openai/gpt-5', 0.5),
    observation('<observation>\nYou decide to wait for 1 iterations.\n</observation>'),
    mixedReply(text('task completed'), 'openai/gpt-5', 'openai/gpt-5', 0.5),
    observation('task completed'),
  ]);
}

describe('MTRouter ScienceWorld trajectories', () => {
  it('reads the benchmark, score, task id without the run, category, split and text actions', async () => {
    const { episode, warnings } = await read(writeTrajectory(join(tempDir(), 'mixed_beta50'), 'boil_var3_run1', boil(3, 72)));
    expect(warnings).toEqual([]);
    expect(episode.run).toBe('mixed_beta50');
    expect(episode.episode_id).toBe('boil_var3_run1');
    expect(episode.task).toMatchObject({ id: 'boil_var3', type: 'scienceworld', category: 'boil', split: 'test_id' });
    expect(episode.task.text).toMatch(/^<task_description>/);
    // 72 of [-100, 100]: not the completed task (success is reaching 100).
    // The environment's score is all the file says of the outcome: no ground truth, no judge; its submission is empty.
    expect(episode.outcome).toEqual({
      score: 72, score_range: [-100, 100], success: false, exit: 'Submitted', target: null, answer: '', scorers: null, notes: null,
    });
    expect(episode.budget).toEqual({ mode: null, usd: 2, max_turns: 50 });
    expect(episode.policy).toEqual({ name: 'PropensityMixedRouter', kind: 'router', train_step: null });
    expect(episode.turns.map((t) => [t.action.type, t.action.tool])).toEqual([
      ['tool', 'observation'],
      ['tool', 'door'],
      ['tool', 'query'],
      ['tool', 'interaction'],
      ['tool', 'wait'],
      ['submit', null],
    ]);
  });

  it('keeps the β-mixed router record of every turn: greedy model, whether it was taken, β, propensity', async () => {
    const { episode } = await read(writeTrajectory(tempDir(), 'boil_var3_run1', boil(3, 100)));
    expect(episode.outcome.success).toBe(true);
    const [first, second] = episode.turns;
    expect(first?.router).toEqual({ greedy_model: 'openai/gpt-5', was_greedy: true, beta: 0.5 });
    expect(first?.propensity).toBeCloseTo(0.5 + 0.5 / 6, 12);
    expect(second?.model).toBe('minimax/minimax-m2');
    expect(second?.router).toEqual({ greedy_model: 'openai/gpt-5', was_greedy: false, beta: 0.5 });
    expect(second?.propensity).toBeCloseTo(0.5 / 6, 12);
    expect(first?.candidates).toBeNull();
  });

  it('assigns train / val / test_id by the reference split and ood_test by task type', async () => {
    const dir = tempDir();
    const splitOf = async (task: string, variation: number): Promise<string | null | undefined> => {
      const traj = scienceWorld(task, variation, 0, 10, [mixedReply(text('look around'), 'openai/gpt-5', 'openai/gpt-5', 0.5)]);
      return (await read(writeTrajectory(dir, `${task}_var${variation}_run0`, traj))).episode.task.split;
    };
    expect(await splitOf('boil', 1)).toBe('train');
    expect(await splitOf('boil', 2)).toBe('val');
    expect(await splitOf('boil', 0)).toBe('test_id');
    expect(await splitOf('freeze', 7)).toBe('ood_test');
    // An in-distribution type past the 30-variation cap, and a type neither split uses.
    expect(await splitOf('find-animal', 200)).toBe('id');
    expect(await splitOf('find-living-thing', 0)).toBeNull();
  });

  it('a baseline run without router_info: the provider\'s model, no propensity, candidates or router record', async () => {
    const traj = scienceWorld('melt', 4, 0, -100, [plainReply(text('pick up thermometer')), observation('You pick up the thermometer.')]);
    traj.info.config = { agent: { step_limit: 50, cost_limit: 2, action_mode: 'text' }, model: { model_name: 'openai/gpt-5' } };
    const { episode } = await read(writeTrajectory(tempDir(), 'melt_var4_run0', traj));
    expect(episode.policy).toEqual({ name: 'openai/gpt-5', kind: 'single-model', train_step: null });
    expect(episode.turns[0]).toMatchObject({ model: 'openai/gpt-5-2025-08-07', propensity: null, candidates: null, router: null, action: { tool: 'object' } });
    expect(episode.outcome).toMatchObject({ score: -100, success: false });
  });

  it('older files: the propensity in extra, the routing record in extra.router_info', async () => {
    const reply = mixedReply(text('look around'), 'openai/gpt-5', 'openai/gpt-5', 0.5);
    const routerInfo = reply.router_info;
    delete reply.router_info;
    delete reply.propensity;
    reply.extra = { ...(reply.extra as object), propensity: 0.25, router_info: routerInfo ?? null };
    const { episode } = await read(writeTrajectory(tempDir(), 'boil_var1_run0', scienceWorld('boil', 1, 0, 5, [reply])));
    expect(episode.turns[0]?.propensity).toBe(0.25);
    expect(episode.turns[0]?.router).toEqual({ greedy_model: 'openai/gpt-5', was_greedy: true, beta: 0.5 });
  });

  it('no final_score: the score from results.json beside the run, else 0 with a warning', async () => {
    const run = tempDir();
    const file = writeTrajectory(run, 'boil_var1_run1', boil(1, null));
    const noScore = await read(file);
    expect(noScore.episode.outcome.score).toBe(0);
    expect(noScore.warnings).toEqual(["no outcome (no info.final_score, none in results.json): scored 0, as MTRouter's parser does"]);
    writeFileSync(join(run, 'results.json'), JSON.stringify({
      boil_var1_run1: { task_id: 'boil_var1_run1', task_name: 'boil', variation_idx: 1, score: 100, steps: 6, cost: 0.01, exit_status: 'Submitted', done: true },
    }, null, 2));
    clearRunResultsCache();
    const { episode, warnings } = await read(file);
    expect(warnings).toEqual([]);
    expect(episode.outcome).toMatchObject({ score: 100, success: true });
  });
});

describe('MTRouter HLE trajectories', () => {
  const replies = [
    learnedReply(call({ name: 'search', arguments: { query: 'two plus two' } }), 'deepseek/deepseek-v3.2', [0.61, 0.58, '-Infinity', 0.4, 'NaN', 0.2]),
    observation('<tool_response name="search">\n1. Arithmetic\n</tool_response>'),
    learnedReply('Compute it.\n<tool_call>\n<python>\n<code>print(2 + 2)</code>\n</python>\n</tool_call>', 'openai/gpt-5', [0.5, 0.7, 0.1, 0.3, 0.2, 0.1]),
    observation('<tool_response name="python">\n4\n</tool_response>'),
    learnedReply('I think I know.', 'openai/gpt-5', [0.5, 0.7, 0.1, 0.3, 0.2, 0.1]),
    observation('No valid tool calls found. Please use the format:\n<tool_call>{"name":"tool_name","arguments":{...}}</tool_call>'),
    learnedReply(`${call({ name: 'browse', arguments: { url: 'https://example.org' } })}\n${call({ name: 'answer', arguments: { answer: '4' } })}`, 'openai/gpt-5', [0.5, 0.9, 0.1, 0.3, 0.2, 0.1]),
  ];

  it('reads the judge, the question id without the run, the subject category, the split and tool calls', async () => {
    const { episode, warnings } = await read(writeTrajectory(join(tempDir(), 'learned_q'), 'q42_run2', hle('q42', 2, 'Math', true, replies)));
    expect(warnings).toEqual([]);
    expect(episode.episode_id).toBe('q42_run2');
    expect(episode.task).toMatchObject({ id: 'q42', type: 'hle', category: 'Math', split: 'id' });
    expect(episode.outcome).toEqual({
      score: 1, score_range: [0, 1], success: true, exit: 'Submitted',
      // The collector saved an empty submission: the answer is the prediction the judge was given.
      target: '4', answer: '4', notes: null,
      scorers: [{
        name: 'HLE judge', source: 'info.benchmark_data.judge_result', value: true, answer: '4', explanation: 'matches', metadata: { confidence: 90 },
      }],
    });
    expect(episode.policy).toEqual({ name: 'LearnedRouter', kind: 'router', train_step: null });
    expect(episode.turns.map((t) => [t.action.type, t.action.tool])).toEqual([
      ['tool', 'search'],
      ['tool', 'python'],
      ['message', null],
      ['submit', 'browse'],
    ]);
  });

  it('a q-value of -Infinity or NaN marks a model that was not a candidate', async () => {
    const file = writeTrajectory(tempDir(), 'q42_run0', hle('q42', 0, 'Math', false, replies));
    expect(readFileSync(file, 'utf8')).toContain('-Infinity,\n');
    const { episode } = await read(file);
    expect(episode.turns[0]?.candidates).toEqual({ [POOL[0] as string]: 0.61, [POOL[1] as string]: 0.58, [POOL[3] as string]: 0.4, [POOL[5] as string]: 0.2 });
    expect(Object.keys(episode.turns[1]?.candidates ?? {})).toEqual(POOL);
    expect(episode.outcome).toMatchObject({ score: 0, success: false });
  });

  it('held-out categories are ood_test; a run folder with one summary_<split>.json names the in-distribution split', async () => {
    const run = tempDir();
    expect((await read(writeTrajectory(run, 'q7_run0', hle('q7', 0, 'Other', true, replies)))).episode.task.split).toBe('ood_test');
    writeFileSync(join(run, 'summary_test_id.json'), '{}');
    expect((await read(writeTrajectory(run, 'q8_run0', hle('q8', 0, 'Physics', true, replies)))).episode.task.split).toBe('test_id');
    writeFileSync(join(run, 'summary_train.json'), '{}');
    expect((await read(writeTrajectory(run, 'q9_run0', hle('q9', 0, 'Physics', true, replies)))).episode.task.split).toBe('id');
  });

  it('no judge_result: correct from the HLE results.json, else 0 with a warning', async () => {
    const run = tempDir();
    const file = writeTrajectory(run, 'q5_run1', hle('q5', 1, 'Chemistry', null, replies));
    const unjudged = await read(file);
    expect(unjudged.episode.outcome.score).toBe(0);
    expect(unjudged.warnings).toEqual(["no outcome (no judge_result, none in results.json): scored 0, as MTRouter's parser does"]);
    expect(unjudged.episode.outcome.scorers).toBeNull();
    expect(unjudged.episode.outcome.notes?.[0]).toMatch(/^Scored 0 by default: the file has no judge_result/);
    // Its prediction "4" is the ground truth "4": the note says no judge scored it.
    expect(unjudged.episode.outcome.notes?.[1]).toBe('The submission ("4") equals the ground truth, but no judge scored it.');
    // "44" neither equals "4" nor holds it as a word: only the default is explained.
    const other = hle('q6', 1, 'Chemistry', null, replies);
    other.info.submission = '44';
    expect((await read(writeTrajectory(tempDir(), 'q6_run1', other))).episode.outcome.notes).toHaveLength(1);
    writeFileSync(join(run, 'results.json'), JSON.stringify({
      metadata: { total: 1, completed: 1, benchmark: 'hle' },
      tasks: { q5_run1: { task_id: 'q5', run_id: 1, category: 'Chemistry', subject: 'Chemistry', steps: 4, cost: 0.02, exit_status: 'Submitted', done: true, correct: true } },
    }, null, 2));
    clearRunResultsCache();
    const fromResults = (await read(file)).episode.outcome;
    expect(fromResults).toMatchObject({ score: 1, success: true });
    expect(fromResults.notes).toEqual(["Score read from the run's results.json: this file holds no verdict of its own."]);
  });

  it('a SWE-bench predictions file named results.json gives nothing', async () => {
    const run = tempDir();
    writeFileSync(join(run, 'results.json'), JSON.stringify({ 'x__y-1': { model_name_or_path: 'm', instance_id: 'x__y-1', model_patch: '' } }));
    const { episode, warnings } = await read(writeTrajectory(run, 'q5_run1', hle('q5', 1, 'Chemistry', null, replies)));
    expect(episode.outcome.score).toBe(0);
    expect(warnings).toHaveLength(1);
  });
});

describe('MTRouter HLE reference files: the outcome as the log has it', () => {
  const reference = (path: string) => join(import.meta.dirname, '../../fixtures/mtrouter/hle', path);
  type Logged = { info: { submission: string; benchmark_data: { ground_truth: string; judge_result?: Record<string, unknown> } } };
  const logged = (path: string): Logged => JSON.parse(readFileSync(reference(path), 'utf8')) as Logged;

  it('judged: ground truth, submission and the judge with its reasoning, exactly as logged', async () => {
    for (const [path, correct] of [
      ['roulette_propensity/6723f1c8a5b94e0d12c7e9a4_run0/6723f1c8a5b94e0d12c7e9a4_run0.traj.json', true],
      ['roulette_propensity/671f0b9e3c2d8a4e5b6f7a18_run2/671f0b9e3c2d8a4e5b6f7a18_run2.traj.json', false],
    ] as const) {
      const { episode } = await read(reference(path));
      const { info } = logged(path);
      const { correct: _c, reasoning, prediction, ...rest } = info.benchmark_data.judge_result ?? {};
      expect(episode.outcome, path).toMatchObject({ score: correct ? 1 : 0, target: info.benchmark_data.ground_truth, answer: info.submission, notes: null });
      // The judge logs no extraction of its own: the answer it read is the prediction it was given.
      expect(episode.outcome.scorers, path).toEqual([
        { name: 'HLE judge', source: 'info.benchmark_data.judge_result', value: correct, answer: prediction, explanation: reasoning, metadata: rest },
      ]);
    }
    // By hand: the Latin question was answered "Accusative"; the ground truth is "Ablative".
    const wrong = (await read(reference('roulette_propensity/671f0b9e3c2d8a4e5b6f7a18_run2/671f0b9e3c2d8a4e5b6f7a18_run2.traj.json'))).episode.outcome;
    expect([wrong.target, wrong.answer, wrong.scorers?.[0]?.explanation]).toEqual([
      'Ablative', 'Accusative', 'The response answers the accusative, but sine takes the ablative; the answers differ.',
    ]);
  });

  it('never judged: scored 0 by default, and the outcome says why', async () => {
    const { episode } = await read(reference('roulette/66f2a7c9d0e14b3a8c5d6e70/66f2a7c9d0e14b3a8c5d6e70.traj.json'));
    expect(episode.outcome).toMatchObject({ score: 0, success: false, target: '4.95', answer: '4.95 rad/s', scorers: null });
    // "4.95 rad/s" is not the ground truth's text "4.95" but holds it as a word: said as such, no equality claimed.
    expect(episode.outcome.notes).toEqual([
      'Scored 0 by default: the file has no judge_result (the judge did not run on it, or ran after it was saved) and no ' +
        "results.json beside the run has an entry for it. MTRouter's parser scores a missing judge result as 0; it is not a verdict.",
      'The submission ("4.95 rad/s") contains the ground truth ("4.95"), but no judge scored it.',
    ]);
  });
});

describe('MTRouter trajectories: other benchmarks', () => {
  it('a benchmark the reference has no range for is scored on ScienceWorld\'s, as its parser does, with a warning', async () => {
    const traj = boil(3, 40);
    traj.info.benchmark = 'gaia';
    const { episode, warnings } = await read(writeTrajectory(tempDir(), 'boil_var3_run1', traj));
    expect(episode.task).toMatchObject({ type: 'gaia', category: 'boil', split: null });
    expect(episode.outcome).toMatchObject({ score: 40, score_range: [-100, 100], success: false });
    expect(warnings).toEqual(['benchmark "gaia" is not ScienceWorld or HLE: scored on ScienceWorld\'s range [-100, 100], as MTRouter\'s parser does']);
  });
});

describe('MTRouter trajectories: bad copies', () => {
  const sw = (): string => pythonText(boil(3, 72));

  it('a bare word that is not one of Python\'s three is refused at its line', async () => {
    const good = pythonText(hle('q1', 0, 'Math', true, [learnedReply(call({ name: 'search' }), 'openai/gpt-5', [0.1, '-Infinity', 0.2, 0.3, 0.4, 0.5])]));
    const bad = good.replace('-Infinity', '-Infinityy');
    const file = writeTrajectory(tempDir(), 'q1_run0', bad);
    const err = await rejection(file);
    expect(err.line).toBe(lineOf(bad, '-Infinityy'));
    expect(err.reason).toMatch(/^invalid JSON/);
  });

  it('Infinity as a score is refused with its path and line', async () => {
    const bad = sw().replace('"final_score": 72', '"final_score": Infinity');
    const err = await rejection(writeTrajectory(tempDir(), 'boil_var3_run1', bad));
    expect(err.line).toBe(lineOf(bad, '"final_score"'));
    expect(err.reason).toMatch(/^info\.final_score: /);
  });

  it('a judge verdict that is not a boolean is refused with its path and line', async () => {
    const good = pythonText(hle('q1', 0, 'Math', true, [learnedReply(call({ name: 'answer' }), 'openai/gpt-5', [0.1, 0.2, 0.3, 0.4, 0.5, 0.6])]));
    const bad = good.replace('"correct": true', '"correct": "yes"');
    const err = await rejection(writeTrajectory(tempDir(), 'q1_run0', bad));
    expect(err.line).toBe(lineOf(bad, '"correct": "yes"'));
    expect(err.reason).toMatch(/^info\.benchmark_data\.judge_result\.correct: /);
  });

  it('the words inside strings are text, not numbers', async () => {
    const traj = boil(3, 72);
    traj.messages[3] = observation('<observation>\nThe thermometer reads NaN, Infinity and -Infinity.\n</observation>');
    const { episode } = await read(writeTrajectory(tempDir(), 'boil_var3_run1', traj));
    expect(episode.turns[0]?.observation).toMatch(/reads NaN, Infinity and -Infinity/);
  });
});
