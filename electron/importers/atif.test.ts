import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../testing/tmp.ts';
import { atifImporter } from './atif.ts';
import { detectImporter } from './pipeline.ts';
import { claimedFiles, head, readEpisodes, readOneEpisode, rejectionOf } from './testing.ts';

const fixtures = fileURLToPath(new URL('../../fixtures/', import.meta.url));
const shared = fileURLToPath(new URL('../../../shared/data/', import.meta.url));
const sampleDir = join(fixtures, 'samples/atif/openagents-tbench-regex-log');
const trajectory = join(sampleDir, 'trajectory.json');
const tempDir = useTempDir();

/** An edited copy of the trajectory, alone in a folder (no metrics.json unless asked). */
function variant(edit: (t: Record<string, unknown>) => void, withMetrics = false): string {
  const dir = tempDir();
  const traj = JSON.parse(readFileSync(trajectory, 'utf8')) as Record<string, unknown>;
  edit(traj);
  const file = join(dir, 'trajectory.json');
  writeFileSync(file, JSON.stringify(traj, null, 2));
  if (withMetrics) copyFileSync(join(sampleDir, 'metrics.json'), join(dir, 'metrics.json'));
  return file;
}

interface Step {
  source: string;
  tool_calls?: unknown[];
}

describe('ATIF importer: OpenAgents Terminal-Bench trajectory', () => {
  it('one turn per agent step (user 1, agent 3, system 5), model from the agent', async () => {
    const steps = (JSON.parse(readFileSync(trajectory, 'utf8')) as { steps: Step[] }).steps;
    const bySource = (s: string) => steps.filter((x) => x.source === s).length;
    expect([steps.length, bySource('user'), bySource('agent'), bySource('system')]).toEqual([9, 1, 3, 5]);

    const ep = await readOneEpisode(atifImporter, trajectory);
    expect(ep.run).toBe('atif');
    expect(ep.episode_id).toBe('tbench-1765491470070-3679a2f1');
    expect(ep.agent).toEqual({ name: 'claude-code', version: '2.0.58' });
    expect(ep.task.text).toMatch(/^Write a regex expression/);
    expect(ep.turns).toHaveLength(3);
    expect(ep.turns.map((t) => t.model)).toEqual(Array(3).fill('claude-sonnet-4-20250514'));
    expect(ep.turns.map((t) => t.action.type)).toEqual(['message', 'tool', 'tool']);
    expect(ep.outcome).toMatchObject({ success: true, score: 1 });
    expect(ep.started_at).toBe('2025-12-11T22:17:50.070Z');
  });

  it('joins the 5 tool calls to results logged in separate system steps, before or after the call', async () => {
    const ep = await readOneEpisode(atifImporter, trajectory);
    const calls = ep.turns.flatMap((t) => t.tool_calls ?? []);
    expect(calls.map((c) => c.name)).toEqual(['Write', 'Bash', 'Bash', 'Bash', 'Write']);
    expect(calls.every((c) => c.result != null)).toBe(true);
    expect(calls.map((c) => c.is_error)).toEqual([true, false, true, false, false]);
    expect(calls[0]?.result).toBe("EACCES: permission denied, mkdir '/app'");
    expect(ep.turns[1]?.action.text?.split('\n')[1]).toBe('bash: pwd && ls -la /');
    expect(ep.turns[1]?.errors).toEqual([{ type: 'tool_error', severity: 'medium' }]);
    expect(ep.turns[2]?.errors).toEqual([]);
  });

  it('an agent step’s message beside its tool calls is the turn’s message; a plain reply is its action text', async () => {
    const ep = await readOneEpisode(atifImporter, trajectory);
    expect(ep.turns[1]?.message).toMatch(/^I see there's a permission issue with the `\/app` directory\. Let me save the regex to the current wor/);
    expect(ep.turns[2]?.message).toMatch(/^The regex has been saved to `\/tmp\/tmp\.Gtrekx29jH\/regex\.txt`\./);
    expect(ep.turns[0]?.action).toMatchObject({ type: 'message', text: expect.stringMatching(/^I'll create a comprehensive regex pattern/) as unknown });
    expect(ep.turns[0]?.message ?? null).toBeNull();
  });

  it('costs and tokens: the totals stay totals, with metrics.json’s cache reads and writes added back', async () => {
    const ep = await readOneEpisode(atifImporter, trajectory);
    expect(ep.turns.every((t) => t.tokens == null && t.cost_usd == null)).toBe(true);
    expect(ep.cost_usd).toBe(0.1268215);
    expect(ep.usage_totals).toEqual([
      {
        model: 'claude-sonnet-4-20250514',
        requests: 3,
        // 70 uncached prompt tokens + 164,540 cache reads + 18,502 cache writes.
        tokens: { in: 70 + 164_540 + 18_502, out: 15_013, cached: 164_540, cache_write: 18_502 },
        cost_usd: 0.1268215,
      },
    ]);
  });

  it('without metrics.json the final_metrics are the totals; per-step metrics and models win over them', async () => {
    const alone = await readOneEpisode(atifImporter, variant(() => {}));
    expect(alone.usage_totals?.[0]?.tokens).toEqual({ in: 70, out: 15_013, cached: null });

    const perStep = await readOneEpisode(
      atifImporter,
      variant((t) => {
        t.schema_version = 'ATIF-v1.4';
        const steps = t.steps as Record<string, unknown>[];
        const agents = steps.filter((s) => s.source === 'agent');
        agents.forEach((s, i) => (s.metrics = { prompt_tokens: 100 * (i + 1), completion_tokens: 10, cached_tokens: 50, cost_usd: 0.01 }));
        if (agents[2]) agents[2].model_name = 'claude-opus-4-20250514';
      }),
    );
    expect(perStep.turns.map((t) => t.model)).toEqual(['claude-sonnet-4-20250514', 'claude-sonnet-4-20250514', 'claude-opus-4-20250514']);
    expect(perStep.turns.map((t) => t.tokens?.in)).toEqual([100, 200, 300]);
    expect(perStep.turns.map((t) => t.cost_usd)).toEqual([0.01, 0.01, 0.01]);
    expect(perStep.cost_usd ?? null).toBeNull();
    expect(perStep.usage_totals ?? null).toBeNull();
  });
});

describe('ATIF importer: streaming .atif.jsonl', () => {
  it('reads a header line and one step per line, with final metrics from <session>.index.json', async () => {
    const traj = JSON.parse(readFileSync(trajectory, 'utf8')) as { session_id: string; agent: unknown; steps: Record<string, unknown>[] };
    const dir = tempDir();
    // The RFC's own tool-call and observation shape, results in the agent step.
    const steps = [
      { step_id: 1, source: 'user', message: 'Say hi with a tool' },
      {
        step_id: 2,
        source: 'agent',
        message: 'calling',
        model_name: 'gpt-5',
        tool_calls: [{ tool_call_id: 'c1', function_name: 'bash', arguments: { command: 'echo hi' } }],
        observation: { results: [{ source_call_id: 'c1', content: 'hi' }] },
        metrics: { prompt_tokens: 1200, completion_tokens: 30, cached_tokens: 1000, cost_usd: 0.002, extra: { reasoning_tokens: 12 } },
      },
      { step_id: 3, source: 'agent', message: 'done' },
    ];
    const header = { __header__: true, schema_version: 'ATIF-v1.4', session_id: 's-1', agent: traj.agent, created_at: '2025-12-01T00:00:00Z' };
    const file = join(dir, 's-1.atif.jsonl');
    writeFileSync(file, [header, ...steps].map((x) => JSON.stringify(x)).join('\n') + '\n');
    writeFileSync(join(dir, 's-1.index.json'), JSON.stringify({ status: 'complete', final_metrics: { total_cost_usd: 0.5 } }));
    expect(detectImporter(head(file), basename(file))?.format).toBe('atif');

    const ep = await readOneEpisode(atifImporter, file);
    expect(ep.episode_id).toBe('s-1');
    expect(ep.turns.map((t) => t.model)).toEqual(['gpt-5', 'claude-sonnet-4-20250514']);
    expect(ep.turns[0]).toMatchObject({
      action: { type: 'tool', tool: 'bash', text: 'bash: echo hi' },
      observation: 'hi',
      tokens: { in: 1200, out: 30, cached: 1000, reasoning: 12 },
      cost_usd: 0.002,
    });
    expect(ep.turns[0]?.tool_calls?.[0]).toMatchObject({ id: 'c1', result: 'hi', input: '{"command":"echo hi"}' });
    // A step has a cost, so the index's total is not the episode's.
    expect(ep.cost_usd ?? null).toBeNull();
    expect(ep.outcome.exit).toBe('complete');

    writeFileSync(file, `${JSON.stringify(header)}\n${JSON.stringify(steps[0])}\n{"step_id": 2, "source": "robot"}\n`);
    const err = await rejectionOf(atifImporter, file);
    expect(err.line).toBe(3);
    expect(err.reason).toMatch(/source/);
  });
});

describe('ATIF importer: broken files', () => {
  it('a truncated trajectory is refused with its line', async () => {
    const file = join(tempDir(), 'trajectory.json');
    writeFileSync(file, readFileSync(trajectory, 'utf8').slice(0, 3000));
    const err = await rejectionOf(atifImporter, file);
    expect(err.reason).toMatch(/invalid JSON/);
    expect(err.line).toBeGreaterThan(1);
  });

  it('a missing field, a wrong version, hostile numbers: refused at the line of the value', async () => {
    const noSession = variant((t) => delete t.session_id);
    expect((await rejectionOf(atifImporter, noSession)).reason).toMatch(/session_id/);

    const v2 = variant((t) => (t.schema_version = '2.0'));
    expect((await rejectionOf(atifImporter, v2)).reason).toMatch(/schema_version/);

    const negative = variant((t) => ((t.final_metrics as Record<string, unknown>).total_prompt_tokens = -70));
    const err = await rejectionOf(atifImporter, negative);
    expect(err.reason).toMatch(/final_metrics.total_prompt_tokens/);
    expect(readFileSync(negative, 'utf8').split('\n')[err.line - 1]).toContain('-70');

    const huge = variant((t) => ((t.final_metrics as Record<string, unknown>).total_cost_usd = 1e300));
    expect((await rejectionOf(atifImporter, huge)).reason).toMatch(/total_cost_usd/);

    const badStep = variant((t) => ((t.steps as Record<string, unknown>[])[1]!.step_id = 'two'));
    expect((await rejectionOf(atifImporter, badStep)).reason).toMatch(/steps\[1\].step_id/);
  });

  it('a broken metrics.json is warned about and ignored', async () => {
    const file = variant(() => {}, true);
    writeFileSync(join(file, '..', 'metrics.json'), '{"tokens": ');
    const { episodes, warnings } = await readEpisodes(atifImporter, file);
    expect(episodes[0]?.cost_usd).toBe(0.1268215);
    expect(warnings).toEqual(['metrics.json is not valid JSON; ignored']);
  });
});

describe('ATIF importer: detection', () => {
  it('claims the ATIF trajectories only (never metrics.json), and they go to ATIF first', () => {
    const claimed = claimedFiles(atifImporter, [join(fixtures, 'samples'), shared]);
    expect(claimed.map((f) => basename(f))).toEqual(['trajectory.json', 'trajectory.json']);
  });
});

describe('ATIF importer: the log’s totals and every message', () => {
  it('final_metrics is the log total, as logged (its 70 prompt tokens leave out the cache metrics.json counts)', async () => {
    const ep = await readOneEpisode(atifImporter, trajectory);
    expect(ep.log_totals).toEqual({ source: 'final_metrics', tokens: { in: 70, out: 15013, cached: null }, cost_usd: 0.1268215 });
    // Counted in the file: user 1 (the task), agent 3, system 5 (each a tool result): no other message.
    expect(ep.turns.every((t) => t.inputs == null)).toBe(true);
    expect(ep.final_messages).toBeNull();
  });

  it('a user step after the first is the next turn’s input; one after the last agent step a final message', async () => {
    const file = variant((t) => {
      const steps = t.steps as Record<string, unknown>[];
      steps.splice(6, 0, { step_id: 100, source: 'user', message: 'Save it under /app, please.' });
      steps.push({ step_id: 101, source: 'user', message: 'Thanks.' });
    });
    const ep = await readOneEpisode(atifImporter, file);
    expect(ep.turns.map((t) => t.inputs?.map((m) => m.text) ?? null)).toEqual([null, ['Save it under /app, please.'], null]);
    expect(ep.final_messages?.map((m) => [m.role, m.text])).toEqual([['user', 'Thanks.']]);
  });
});
