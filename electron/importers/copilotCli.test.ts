import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../db/database.ts';
import { useTempDir } from '../testing/tmp.ts';
import { copilotCliImporter } from './copilotCli.ts';
import { importPaths } from './pipeline.ts';
import { claimedFiles, editJsonLine, readEpisodes, readOneEpisode, rejectionOf } from './testing.ts';

const fixtures = fileURLToPath(new URL('../../fixtures/', import.meta.url));
const sample = join(fixtures, 'samples/copilot-cli/vct-copilot.jsonl');
const unedited = join(fixtures, 'samples/copilot-cli/vct-copilot-unedited.jsonl');
const SHARED = '/work/shared/data';
const tempDir = useTempDir();

const readOne = (file: string) => readOneEpisode(copilotCliImporter, file);
const rawLines = (file: string) => readFileSync(file, 'utf8').split('\n').filter((l) => l.trim());

function write(lines: string[], name = 'events.jsonl'): string {
  const file = join(tempDir(), name);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

describe('Copilot CLI importer: the real event log', () => {
  it('reproduces the PROVENANCE hand counts', async () => {
    const types = rawLines(sample).map((l) => (JSON.parse(l) as { type: string }).type);
    expect(types).toHaveLength(55);
    expect(types.filter((t) => t === 'assistant.message')).toHaveLength(6);
    expect(types.filter((t) => t === 'tool.execution_complete')).toHaveLength(13);

    const { episodes, warnings } = await readEpisodes(copilotCliImporter, sample);
    expect(warnings).toEqual([]);
    const [ep] = episodes;
    if (!ep) throw new Error('no episode');
    expect(ep.run).toBe('copilot-cli/VibeCodingTracker');
    expect(ep.episode_id).toBe('96ef38f0-9d09-45c3-8124-6448c36090ed');
    expect(ep.agent).toEqual({ name: 'copilot-cli', version: '1.0.34' });
    expect(ep.turns).toHaveLength(6);
    expect(new Set(ep.turns.map((t) => t.model))).toEqual(new Set(['claude-sonnet-4.6']));
    const calls = ep.turns.flatMap((t) => t.tool_calls ?? []);
    expect(calls).toHaveLength(13);
    expect(calls.every((c) => c.result !== null && c.is_error === false)).toBe(true);
    // No per-request tokens: turns have none, the shutdown totals are the episode's.
    expect(ep.turns.every((t) => t.tokens == null && t.cost_usd == null)).toBe(true);
    expect(ep.usage_totals).toEqual([
      {
        model: 'claude-sonnet-4.6',
        requests: 6,
        tokens: { in: 186_809, out: 2_848, cached: 151_738, cache_write: 0, reasoning: 1_024 },
      },
    ]);
    expect(ep.cost_usd ?? null).toBeNull();
    expect(ep.turns[5]?.notes).toEqual([expect.stringMatching(/premium requests \(claude-sonnet-4\.6: 2\).*not USD/)]);
    expect(ep.outcome).toEqual({ exit: 'task_complete' });
    expect(ep.task.text).toMatch(/^請不要修改任何代碼/);
    expect(ep.system_prompt).toMatch(/^You are the GitHub Copilot CLI/);
  });

  it('says what each response did', async () => {
    const ep = await readOne(sample);
    const [first, , third, , fifth, sixth] = ep.turns;
    expect(first?.action.type).toBe('tool');
    expect(first?.action.tool).toBe('read'); // report_intent is skipped for the family
    expect(first?.action.text?.split('\n')[0]).toBe('report_intent: Investigating Rust doc tools');
    expect(third?.action.text?.split('\n')[0]).toBe('bash: ls /home/wei/repo/VibeCodingTracker/.github/workflows/');
    // The two executions that appear without a toolRequest are joined to the response before them.
    expect(third?.tool_calls?.map((c) => c.name)).toEqual(['bash', 'web_search', 'glob', 'web_fetch']);
    expect(third?.notes?.[0]).toMatch(/only as execution events/);
    expect(fifth?.action).toMatchObject({ type: 'message', tool: null });
    expect(fifth?.errors).toBeNull();
    expect(sixth?.action).toMatchObject({ type: 'submit', tool: 'task_complete' });
    expect(first?.errors).toEqual([]);
  });

  it('the content of a response with tool requests is its message; a reply is its action text alone', async () => {
    const ep = await readOne(sample);
    // In this log only the reply (turn 4) has content; the tool-requesting responses have "".
    expect(ep.turns[4]?.action.text).toMatch(/^以下是我的調查結果，針對你的專案特性整理：/);
    expect(ep.turns.every((t) => t.message == null)).toBe(true);
    // The same log with words before the first response's tool requests (line 9).
    const words = 'Let me look at the workflows and the crate layout first.';
    const edited = editJsonLine<{ data: { content: string } }>(rawLines(sample), 9, (r) => {
      r.data.content = words;
    });
    const first = (await readOne(write(edited))).turns[0];
    expect(first?.action.text?.split('\n')[0]).toBe('report_intent: Investigating Rust doc tools');
    expect(first?.message).toBe(words);
  });

  it('the unedited upstream log: 11 tool executions, reasoning tokens 0', async () => {
    const ep = await readOne(unedited);
    expect(ep.turns).toHaveLength(6);
    expect(ep.turns.flatMap((t) => t.tool_calls ?? [])).toHaveLength(11);
    expect(ep.turns.some((t) => t.notes?.some((n) => n.includes('execution events')))).toBe(false);
    expect(ep.usage_totals?.[0]?.tokens?.reasoning).toBe(0);
  });

  it('a failed execution is a tool error; a model change applies to the responses after it', async () => {
    const lines = rawLines(unedited).map((l, i) => {
      const r = JSON.parse(l) as { type: string; data: Record<string, unknown> };
      if (i === 13) {
        r.data.success = false;
        r.data.error = { message: 'boom' };
        delete r.data.model;
      }
      return JSON.stringify(r);
    });
    const change = JSON.stringify({ type: 'session.model_change', data: { newModel: 'gpt-5' }, id: 'x', timestamp: 't' });
    const at = lines.findIndex((l) => l.includes('"type":"assistant.message"') && l.includes('以下是我的調查結果'));
    lines.splice(at, 0, change);
    const ep = await readOne(write(lines));
    expect(ep.turns[0]?.tool_calls?.[0]).toMatchObject({ is_error: true, result: 'Intent logged\nerror: boom' });
    expect(ep.turns[0]?.errors).toEqual([{ type: 'tool_error', severity: 'medium' }]);
    expect(ep.turns.map((t) => t.model)).toEqual([...Array<string>(4).fill('claude-sonnet-4.6'), 'gpt-5', 'claude-sonnet-4.6']);
  });
});

describe('Copilot CLI importer: broken copies of the real log', () => {
  it('truncated mid-line: refused at the last line', async () => {
    const text = readFileSync(sample, 'utf8');
    const cut = text.slice(0, Math.floor(text.length * 0.4));
    const file = join(tempDir(), 'cut.jsonl');
    writeFileSync(file, cut);
    const err = await rejectionOf(copilotCliImporter, file);
    expect(err.line).toBe(cut.split('\n').length);
  });

  it('a corrupted line, wrong types and hostile numbers: refused at their line', async () => {
    const edit = (lineNo: number, f: (r: { data: Record<string, unknown> }) => void) => write(editJsonLine(rawLines(sample), lineNo, f));
    expect((await rejectionOf(copilotCliImporter, write(rawLines(sample).map((l, i) => (i === 19 ? `${l}}` : l))))).line).toBe(20);
    const usage = (v: unknown) => (r: { data: Record<string, unknown> }) => {
      const m = (r.data.modelMetrics as Record<string, { usage: Record<string, unknown> }>)['claude-sonnet-4.6'];
      if (m) m.usage.inputTokens = v;
    };
    for (const bad of [-3, '186809', 1e13, Number.MAX_SAFE_INTEGER * 4]) {
      const err = await rejectionOf(copilotCliImporter, edit(55, usage(bad)));
      expect(err.line, String(bad)).toBe(55);
      expect(err.reason).toMatch(/inputTokens/);
    }
    const badRequests = await rejectionOf(copilotCliImporter, edit(9, (r) => {
      r.data.toolRequests = 'view';
    }));
    expect(badRequests.line).toBe(9);
    const noStart = await rejectionOf(copilotCliImporter, write(rawLines(sample).slice(1)));
    expect(noStart.line).toBe(1);
    expect(noStart.reason).toMatch(/session\.start/);
    // A blank model name reaches the one response that takes its model from the session (line 45).
    const blankModel = await rejectionOf(copilotCliImporter, edit(4, (r) => {
      r.data.newModel = ' ';
    }));
    expect(blankModel.line).toBe(45);
    expect(blankModel.reason).toMatch(/model/);
  });
});

describe('Copilot CLI importer: detection', () => {
  it('claims the Copilot CLI event logs and nothing else', () => {
    const shared = existsSync(SHARED);
    const claimed = claimedFiles(copilotCliImporter, [join(fixtures, 'samples'), SHARED]);
    expect(claimed.map((f) => basename(f)).sort()).toEqual(
      ['vct-copilot-unedited.jsonl', 'vct-copilot.jsonl', ...(shared ? ['vct-copilot.jsonl'] : [])].sort(),
    );
  });
});

type EventRecord = { type: string; data: Record<string, unknown>; id?: string; timestamp?: string };
const events = (file: string): EventRecord[] => rawLines(file).map((l) => JSON.parse(l) as EventRecord);

describe('Copilot CLI importer: the log\'s own totals', () => {
  it('the shutdown metrics are the episode\'s log_totals (and still its usage_totals)', async () => {
    const ep = await readOne(sample);
    expect(ep.log_totals).toEqual({
      source: 'session.shutdown modelMetrics, summed over models',
      requests: 6,
      tokens: { in: 186_809, out: 2_848, cached: 151_738, cache_write: 0, reasoning: 1_024 },
    });
    // One request per response: the six assistant.message events.
    expect(ep.turns).toHaveLength(ep.log_totals?.requests ?? -1);
    expect(ep.usage_totals?.[0]?.tokens).toEqual(ep.log_totals?.tokens);
  });

  it('two models: summed per kind; a kind no model totals stays absent', async () => {
    const lines = editJsonLine<EventRecord>(rawLines(sample), 55, (r) => {
      const metrics = r.data.modelMetrics as Record<string, unknown>;
      metrics['gpt-5-mini'] = { requests: { count: 2, cost: 0 }, usage: { inputTokens: 1000, outputTokens: 10 } };
    });
    const ep = await readOne(write(lines));
    expect(ep.log_totals?.requests).toBe(8);
    expect(ep.log_totals?.tokens).toEqual({ in: 187_809, out: 2_858, cached: 151_738, cache_write: 0, reasoning: 1_024 });
  });

  it('a model named __proto__ counts like any other (zod\'s own record left it out of the totals)', async () => {
    const lines = editJsonLine<EventRecord>(rawLines(sample), 55, (r) => {
      const metrics = r.data.modelMetrics as Record<string, unknown>;
      // An own key, as JSON.parse makes it from a log: assignment would set the prototype instead.
      const totals = { requests: { count: 2, cost: 0 }, usage: { inputTokens: 1000, outputTokens: 10 } };
      Object.defineProperty(metrics, '__proto__', { value: totals, enumerable: true, configurable: true, writable: true });
    });
    expect(lines[54]).toContain('"__proto__"');
    const ep = await readOne(write(lines));
    expect(ep.log_totals?.requests).toBe(8);
    expect(ep.log_totals?.tokens).toEqual({ in: 187_809, out: 2_858, cached: 151_738, cache_write: 0, reasoning: 1_024 });
  });
});

describe('Copilot CLI importer: what the model read between responses', () => {
  it('the real log: one prompt (the task); the autopilot nudge reaches the sixth response as system text', async () => {
    // Hand count: 2 user.message events, the first with the user's words, the second with content "" and the
    // agent's nudge as transformedContent; 2 system.message events with the same text.
    const all = events(sample);
    const users = all.filter((e) => e.type === 'user.message');
    expect(users.map((u) => (u.data.content as string).length > 0)).toEqual([true, false]);
    const systems = all.filter((e) => e.type === 'system.message').map((e) => e.data.content);
    expect(systems).toHaveLength(2);
    expect(systems[1]).toBe(systems[0]);

    const ep = await readOne(sample);
    expect(ep.turns.map((t) => t.inputs?.map((m) => m.role) ?? [])).toEqual([[], [], [], [], [], ['system']]);
    expect(ep.turns[5]?.inputs?.[0]).toEqual({
      role: 'system',
      text: expect.stringMatching(/You have not yet marked the task as complete using the task_complete tool/) as unknown,
      timestamp: '2026-04-23T17:12:37.464Z',
    });
    expect(ep.final_messages ?? null).toBeNull();
  });

  it('a prompt the user typed later is a user input of the response after it; one after the last, a final message', async () => {
    const lines = editJsonLine<EventRecord>(rawLines(sample), 48, (r) => {
      r.data.content = 'Also compare rustdoc with mdBook.';
    });
    lines.push(JSON.stringify({ type: 'user.message', data: { content: 'thanks', transformedContent: 'thanks' }, id: 'u9', timestamp: '2026-04-23T17:18:00.000Z' }));
    const ep = await readOne(write(lines));
    expect(ep.turns[5]?.inputs).toEqual([{ role: 'user', text: 'Also compare rustdoc with mdBook.', timestamp: '2026-04-23T17:12:37.464Z' }]);
    expect(ep.final_messages).toEqual([{ role: 'user', text: 'thanks', timestamp: '2026-04-23T17:18:00.000Z' }]);
    expect(ep.task.text).toMatch(/^請不要修改任何代碼/);
  });
});

describe('Copilot CLI importer: a session that only failed', () => {
  // The real log's opening (start, model, system prompt, the user's prompt, the first turn_start: lines 1-8), then
  // the 402 a Copilot account without quota gets, in the shape the CLI writes it (session.error with errorType,
  // errorCode, message, statusCode), and the shutdown of a session that made no request.
  const noQuota = 'You have exceeded your monthly quota (Request ID: D405:19338C:E333D6:F49278:6A624E86)';
  const quotaSession = (): string =>
    write(
      [
        ...editJsonLine<EventRecord>(rawLines(sample), 1, (r) => {
          r.data.sessionId = '5f1c3a2e-0000-4000-8000-000000000402';
        }).slice(0, 8),
        JSON.stringify({
          type: 'session.error',
          data: { errorType: 'quota', errorCode: 'quota_exceeded', message: noQuota, statusCode: 402 },
          id: 'e402',
          timestamp: '2026-04-23T17:11:16.901Z',
        }),
        JSON.stringify({
          type: 'session.shutdown',
          data: { shutdownType: 'routine', totalPremiumRequests: 0, modelMetrics: {} },
          id: 'end',
          timestamp: '2026-04-23T17:11:20.000Z',
        }),
      ],
      'quota.jsonl',
    );

  it('is an episode with no turns whose exit names the failure', async () => {
    const { episodes, warnings } = await readEpisodes(copilotCliImporter, quotaSession());
    expect(warnings).toEqual([]);
    expect(episodes[0]?.turns).toEqual([]);
    expect(episodes[0]?.outcome.exit).toBe(`quota 402: ${noQuota}`);
    expect(episodes[0]?.task.text).toMatch(/^請不要修改任何代碼/);
    expect(episodes[0]?.log_totals ?? null).toBeNull();
  });

  it('goes through the import pipeline beside a good session', async () => {
    const root = join(tempDir(), 'session-state');
    mkdirSync(root);
    copyFileSync(quotaSession(), join(root, 'a-quota.jsonl'));
    copyFileSync(sample, join(root, 'b-events.jsonl'));
    const db = openDatabase(join(tempDir(), 'quota.db'));
    const report = await importPaths(db, [root]);
    expect(report.files.map((f) => [basename(f.path), f.status, f.episodes, f.turns])).toEqual([
      ['a-quota.jsonl', 'imported', 1, 0],
      ['b-events.jsonl', 'imported', 1, 6],
    ]);
    expect(db.prepare('SELECT n_turns, exit_reason FROM episodes ORDER BY n_turns').all()).toEqual([
      { n_turns: 0, exit_reason: `quota 402: ${noQuota}` },
      { n_turns: 6, exit_reason: 'task_complete' },
    ]);
    db.close();
  });

  it('a model call that failed after the last response is the exit; one the agent got past is not', async () => {
    const failure = JSON.stringify({
      type: 'model.call_failure',
      data: { model: 'claude-sonnet-4.6', statusCode: 500, errorMessage: 'Internal Server Error' },
      id: 'f1',
      timestamp: '2026-04-23T17:12:09.700Z',
    });
    const lines = rawLines(unedited).filter((l) => !l.includes('"session.task_complete"'));
    const last = (await readOne(write([...lines.slice(0, -1), failure, ...lines.slice(-1)]))).outcome;
    expect(last).toEqual({ exit: 'model call failed (claude-sonnet-4.6) 500: Internal Server Error' });
    const midway = lines.findIndex((l) => l.includes('"assistant.turn_end"'));
    const recovered = (await readOne(write([...lines.slice(0, midway), failure, ...lines.slice(midway)]))).outcome;
    expect(recovered).toEqual({});
  });
});
