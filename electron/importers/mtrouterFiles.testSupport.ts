/**
 * Small trajectories in the layout MTRouter's collectors save (run/utils/save.py, research/collection/*), for
 * tests: `info` with the collector's fields, assistant messages as the routers return them, written where the
 * collectors write them (`<run>/<instance>/<instance>.traj.json`) with Python's json.dumps spacing. A score
 * given as the string `-Infinity` / `Infinity` / `NaN` is written as Python writes those floats (bare words).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Message = { [key: string]: Json };
export type Trajectory = { info: { [key: string]: Json }; messages: Message[]; trajectory_format: string };

export const POOL = ['deepseek/deepseek-v3.2', 'openai/gpt-5', 'minimax/minimax-m2', 'moonshotai/kimi-k2-0905', 'google/gemini-2.5-flash-lite', 'openai/gpt-oss-120b'];

const usage = (prompt: number, completion: number, cost: number, model = 'provider-model-id'): Json => ({
  response: { model, usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, cost } },
});

/** An assistant reply from the β-mixed collection router (propensity_mixed_router.py). */
export function mixedReply(content: string, model: string, greedy: string, beta: number, cost = 0.001): Message {
  const taken = model === greedy;
  const propensity = taken ? beta + (1 - beta) / POOL.length : (1 - beta) / POOL.length;
  return {
    role: 'assistant', content, timestamp: 1733000000.5, extra: usage(1200, 80, cost),
    model_name: model, router_type: 'PropensityMixedRouter', propensity, selected_model: model,
    router_info: {
      router_type: 'PropensityMixedRouter', propensity, selected_model: model, greedy_model: greedy,
      was_greedy: taken, beta, n_models: POOL.length, model_pool: POOL,
    },
  };
}

/** An assistant reply from the learned router (research/routers/learned.py): q-values aligned with the pool. */
export function learnedReply(content: string, model: string, qValues: (number | string)[], cost = 0.002): Message {
  return {
    role: 'assistant', content, timestamp: 1733000000.5, extra: usage(2400, 150, cost),
    model_name: model, router_type: 'LearnedRouter', q_values: qValues as Json[],
    router_info: { router_type: 'LearnedRouter', policy_type: 'GreedyPolicy', q_values: qValues as Json[], model_pool: POOL },
  };
}

/** An assistant reply of a single-model (baseline) run: no routing fields. */
export function plainReply(content: string, cost = 0.0005): Message {
  return { role: 'assistant', content, timestamp: 1733000000.5, extra: usage(900, 60, cost, 'openai/gpt-5-2025-08-07') };
}

export const observation = (text: string): Message => ({ role: 'user', content: text, timestamp: 1733000001 });

function saved(messages: Message[], config: Json, info: { [key: string]: Json }): Trajectory {
  return {
    info: {
      exit_status: 'Submitted', submission: '', model_stats: { instance_cost: 0.01, api_calls: messages.filter((m) => m.role === 'assistant').length },
      mini_version: '1.0.0', config, ...info,
    },
    messages,
    trajectory_format: 'mini-agentic-router-1',
  };
}

/** A ScienceWorld trajectory as collector.py + run/extra/scienceworld.py save it. */
export function scienceWorld(taskName: string, variation: number, run: number, finalScore: number | null, replies: Message[]): Trajectory {
  const config = {
    agent: { step_limit: 50, cost_limit: 2.0, action_mode: 'text', finish_markers: ['task completed', 'TASK_COMPLETE'] },
    model: { model_kwargs: POOL.map((m) => ({ model_name: m })), model_name: 'propensity_mixed', beta: 0.5 },
    environment: { task_name: taskName, variation_idx: variation, simplification_str: '' },
    agent_type: 'miniagenticrouter.run.extra.scienceworld.ProgressTrackingAgent',
    model_type: 'miniagenticrouter.research.collection.propensity_mixed_router.PropensityMixedRouter',
    environment_type: 'miniagenticrouter.environments.extra.scienceworld.ScienceWorldEnvironment',
  };
  const info: { [key: string]: Json } = { task_id: `${taskName}_var${variation}_run${run}`, task_name: taskName, variation_idx: variation, config_signature: 'a1b2c3d4' };
  if (finalScore !== null) info.final_score = finalScore;
  return saved(
    [{ role: 'system', content: 'You are a helpful assistant interacting with a text-based science simulation environment.' },
      { role: 'user', content: `<task_description>\nYour task is to ${taskName}.\n</task_description>` }, ...replies],
    config, info,
  );
}

/** An HLE trajectory as hle_collector.py saves it (judge_result only when the judge ran). */
export function hle(questionId: string, run: number, category: string, correct: boolean | null, replies: Message[]): Trajectory {
  const config = {
    agent: { step_limit: 25, cost_limit: 5.0, action_mode: 'multitool', enabled_tools: ['search', 'python', 'browse', 'answer'], answer_tool: 'answer' },
    model: { model_kwargs: POOL.map((m) => ({ model_name: m })), model_name: 'learned' },
    environment: null,
    agent_type: 'miniagenticrouter.research.collection.hle_collector._ProgressTrackingMultiToolAgent',
    model_type: 'miniagenticrouter.research.routers.learned.LearnedRouter',
    environment_type: null,
  };
  const benchmarkData: { [key: string]: Json } = {
    question: 'What is 2 + 2?', ground_truth: '4', subject: category === 'Math' ? 'Mathematics' : 'Trivia', category,
    question_type: 'exactMatch', prediction: '4',
  };
  if (correct !== null) benchmarkData.judge_result = { correct, reasoning: 'matches', extracted_answer: '4', confidence: 90 };
  return saved(
    [{ role: 'system', content: 'You are an expert problem solver tackling challenging questions from Humanity\'s Last Exam.' },
      { role: 'user', content: 'What is 2 + 2?' }, ...replies],
    config,
    { task_id: questionId, run_id: run, benchmark: 'hle', benchmark_data: benchmarkData, config_signature: 'e5f6a7b8' },
  );
}

/** Python's json.dumps(indent=2) text of a trajectory, non-finite float markers written bare. */
export function pythonText(traj: Trajectory): string {
  return JSON.stringify(traj, null, 2).replace(/"(-Infinity|Infinity|NaN)"/g, '$1');
}

/** Writes `<runDir>/<instance>/<instance>.traj.json` (the instance is the file's folder name); returns the path. */
export function writeTrajectory(runDir: string, instance: string, traj: Trajectory | string): string {
  const dir = join(runDir, instance);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${instance}.traj.json`);
  writeFileSync(file, typeof traj === 'string' ? traj : pythonText(traj));
  return file;
}
