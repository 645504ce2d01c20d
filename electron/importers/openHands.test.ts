import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { CanonicalEpisode } from '../../shared/canonical.ts';
import { openDatabase } from '../db/database.ts';
import { useTempDir } from '../testing/tmp.ts';
import { miniSweAgentImporter } from './miniSweAgent.ts';
import { openHandsImporter } from './openHands.ts';
import { detectImporter, importPaths } from './pipeline.ts';
import { claimedFiles, head, readEpisodes, readOneEpisode, rejectionOf, tokenSums, walk } from './testing.ts';

const fixtures = fileURLToPath(new URL('../../fixtures/', import.meta.url));
const shared = fileURLToPath(new URL('../../../shared/data/', import.meta.url));
const gui = join(fixtures, 'samples/openhands/basic_gui_mode.json');
const resolver = join(fixtures, 'samples/openhands/resolver-output.jsonl');
const sessions = join(fixtures, 'samples/openhands/sessions');
const SESSION_A = '9b1f0c2e7d4a4b6c8e3f5a1d2c7b9e04';
const SESSION_B = 'c4e7a9d13b2f4e8a9c6d0f1e2a3b4c5d';
const tempDir = useTempDir();

function copyWith(source: string, edit: (text: string) => string, name = basename(source)): string {
  const file = join(tempDir(), name);
  writeFileSync(file, edit(readFileSync(source, 'utf8')));
  return file;
}

describe('OpenHands importer: saved event list (basic_gui_mode.json)', () => {
  it('one turn per LLM call: 4 model responses and the final reply that carries none', async () => {
    const events = JSON.parse(readFileSync(gui, 'utf8')) as { tool_call_metadata?: { model_response?: { id: string } } }[];
    expect(events).toHaveLength(18);
    const responses = new Set(events.map((e) => e.tool_call_metadata?.model_response?.id).filter(Boolean));
    expect(responses.size).toBe(4);

    const ep = await readOneEpisode(openHandsImporter, gui);
    expect(ep.run).toBe('openhands');
    expect(ep.episode_id).toBe('basic_gui_mode');
    expect(ep.task.text).toMatch(/^I want to create a VueJS app/);
    // 4 calls with a model_response (8 events: action + observation each) + 1 agent message without metadata.
    expect(ep.turns).toHaveLength(5);
    expect(ep.turns.map((t) => t.model)).toEqual(Array(5).fill('claude-3-5-sonnet-20241022'));
    expect(ep.turns[4]?.notes?.[0]).toMatch(/inferred from the previous call/);
    expect(ep.turns.map((t) => [t.action.type, t.action.tool])).toEqual([
      ['tool', 'bash'],
      ['tool', 'edit'],
      ['tool', 'edit'],
      ['tool', 'bash'],
      ['message', null],
    ]);
    expect(ep.turns[0]?.action.text).toBe('bash: mkdir -p /workspace/todo-app');
    expect(ep.turns[1]?.action.text).toBe('Edit /workspace/todo-app/index.html');
    const sum = (f: (t: (typeof ep.turns)[number]) => number | null | undefined) => ep.turns.reduce((a, t) => a + (f(t) ?? 0), 0);
    expect(sum((t) => t.tokens?.in)).toBe(17_297);
    expect(sum((t) => t.tokens?.out)).toBe(2_024);
    // litellm's prompt_tokens already holds Anthropic's cache reads and writes (3,439 = 4 + 3,435 written).
    expect(ep.turns[0]?.tokens).toMatchObject({ in: 3439, cached: 0, cache_write: 3435 });
    expect(ep.turns[4]?.tokens).toBeNull();
    expect(ep.turns.every((t) => t.cost_usd == null)).toBe(true);
  });

  it('joins each tool call to its observation by cause and keeps the logged arguments', async () => {
    const ep = await readOneEpisode(openHandsImporter, gui);
    const calls = ep.turns.flatMap((t) => t.tool_calls ?? []);
    expect(calls.map((c) => c.name)).toEqual(['execute_bash', 'str_replace_editor', 'str_replace_editor', 'execute_bash']);
    expect(calls[0]).toMatchObject({ id: 'toolu_01W9Z8jBctr8X2frZV9p1RYs', input: '{"command": "mkdir -p /workspace/todo-app"}', is_error: false });
    expect(calls[1]?.result).toMatch(/^--- \/workspace\/todo-app\/index.html/);
    // `python3 -m http.server` timed out: exit code -1, success false.
    expect(calls[3]).toMatchObject({ is_error: true, result: expect.stringMatching(/^Serving HTTP/) });
    expect(ep.turns[3]?.errors).toEqual([{ type: 'tool_error', severity: 'medium' }]);
    expect(ep.turns[0]?.errors).toEqual([]);
    expect(ep.outcome).toMatchObject({ exit: 'awaiting_user_input' });
    expect(ep.outcome.success ?? null).toBeNull();
  });

  it('keeps what the model wrote with its tool call as the message; the final reply is its action text alone', async () => {
    const ep = await readOneEpisode(openHandsImporter, gui);
    expect(ep.turns[1]?.action.text).toBe('Edit /workspace/todo-app/index.html');
    expect(ep.turns[1]?.message).toBe("Let's create the main HTML file:");
    expect(ep.turns[0]?.message).toMatch(/^I'll help you create a Vue\.js application with all the requested todo list functionality\./);
    expect(ep.turns[4]?.action).toMatchObject({ type: 'message', text: expect.stringMatching(/^I've created a complete Vue\.js todo application/) as unknown });
    expect(ep.turns[4]?.message ?? null).toBeNull();
  });
});

describe('OpenHands importer: resolver output (JSON Lines)', () => {
  it('one episode per line, per-call costs from metrics.costs, the resolver verdict as outcome', async () => {
    const { episodes, warnings } = await readEpisodes(openHandsImporter, resolver);
    expect(episodes.map((e) => e.episode_id)).toEqual(['neubig/pr-viewer#5', 'neubig/pr-viewer#1']);
    expect(episodes.map((e) => e.run)).toEqual(['openhands/pr-viewer', 'openhands/pr-viewer']);
    const [five, one] = episodes;
    // Issue 5: 4 costs for 4 agent actions (run, run_ipython, run, finish); issue 1: 22 for 22 (21 + finish).
    expect(five?.turns).toHaveLength(4);
    expect(one?.turns).toHaveLength(22);
    const total = (ep: typeof five) => ep?.turns.reduce((a, t) => a + (t.cost_usd ?? 0), 0) ?? 0;
    expect(total(five)).toBeCloseTo(0.070713, 9);
    expect(total(one)).toBeCloseTo(1.152933, 9);
    expect(five?.turns.map((t) => t.cost_usd)).toEqual([0.015396, 0.019719, 0.016742999999999997, 0.018855]);
    expect(five?.cost_usd ?? null).toBeNull();
    expect(five?.turns.map((t) => t.action.type)).toEqual(['tool', 'tool', 'tool', 'submit']);
    expect(five?.turns[0]?.action.text).toBe('bash: touch LICENSE');
    // The old shape keeps the model's words only as the action's `thought`; finish's thought is its action text.
    expect(five?.turns[0]?.message).toMatch(/^Certainly! I'll add the MIT license to the repository in \/workspace\. Let's start by creat/);
    expect(five?.turns[3]?.message ?? null).toBeNull();
    expect(five?.turns[0]?.tool_calls?.[0]?.result).toContain('root@');
    expect(five?.task).toMatchObject({ type: 'openhands', category: 'neubig/pr-viewer' });
    expect(five?.task.text).toMatch(/^Please fix the following issue/);
    expect(five?.outcome).toMatchObject({ success: true, score: 1 });
    // No model anywhere in this file (no model_response, no metadata): named "unknown" and said so.
    expect(new Set(episodes.flatMap((e) => e.turns.map((t) => t.model)))).toEqual(new Set(['unknown']));
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/resolver-output.jsonl:1: 4 call\(s\) name no model/);
  });

  it('takes the model from metadata.llm_config and keeps only the total when costs do not match the calls', async () => {
    const file = copyWith(resolver, (text) => {
      const [first] = text.split('\n');
      const line = JSON.parse(first ?? '') as Record<string, unknown> & { metrics: { costs: number[] } };
      line.metadata = { llm_config: { model: 'anthropic/claude-3-5-sonnet-20240620' } };
      line.metrics.costs = line.metrics.costs.slice(0, 3);
      return `${JSON.stringify(line)}\n`;
    });
    const { episodes, warnings } = await readEpisodes(openHandsImporter, file);
    const ep = episodes[0];
    expect(ep?.turns.map((t) => t.model)).toEqual(Array(4).fill('anthropic/claude-3-5-sonnet-20240620'));
    expect(ep?.turns[0]?.notes?.[0]).toMatch(/metadata.llm_config.model/);
    expect(ep?.turns.every((t) => t.cost_usd == null)).toBe(true);
    expect(ep?.cost_usd).toBe(0.070713);
    expect(warnings.join('\n')).toMatch(/3 costs for 4 calls/);
  });
});

describe('OpenHands importer: server sessions (metadata.json, events/, event_cache/)', () => {
  it('a folder of two sessions imports both, each from all its event files, as the session id', async () => {
    const db = openDatabase(join(tempDir(), 'oh.db'));
    const report = await importPaths(db, [sessions]);
    expect(report.files.map((f) => [relative(sessions, f.path), f.status, f.episodes, f.turns])).toEqual([
      [`${SESSION_A}/metadata.json`, 'imported', 1, 8],
      [`${SESSION_B}/metadata.json`, 'imported', 1, 7],
    ]);
    expect(db.prepare('SELECT ext_id, n_turns FROM episodes ORDER BY ext_id').all()).toEqual([
      { ext_id: SESSION_A, n_turns: 8 },
      { ext_id: SESSION_B, n_turns: 7 },
    ]);
    // The cache pages (events 0–24) and the event files are read with the session, never on their own.
    const ignored = report.ignored.map((i) => relative(sessions, i.path));
    expect(ignored).toContain(`${SESSION_A}/event_cache/0-25.json`);
    expect(ignored.filter((p) => p.includes('/events/'))).toHaveLength(29 + 27);
    const sessionFiles = report.ignored.filter((i) => !i.path.endsWith('PROVENANCE.md'));
    expect(new Set(sessionFiles.map((i) => i.reason.replace(/\(.*/, '')))).toEqual(new Set(['sidecar of openhands logs ']));
    db.close();
  });

  it('the turns past the cache page are there: 8 calls of session A, 3 of them after event 24', async () => {
    const { episodes, warnings } = await readEpisodes(openHandsImporter, join(sessions, SESSION_A, 'metadata.json'));
    const ep = episodes[0] as CanonicalEpisode;
    expect(ep).toMatchObject({ run: 'openhands', episode_id: SESSION_A, task: { id: SESSION_A, type: 'openhands' }, outcome: { exit: 'awaiting_user_input' } });
    expect(ep.task.text).toMatch(/^I want to create a VueJS app/);
    // 6 model responses (4 from the real trajectory, 2 after the second prompt) and 2 closing replies without one.
    expect(ep.turns.map((t) => [t.action.type, t.tokens?.in ?? null])).toEqual([
      ['tool', 3439], ['tool', 3601], ['tool', 4769], ['tool', 5488], ['message', null], ['tool', 6412], ['tool', 6921], ['message', null],
    ]);
    expect(ep.turns[6]?.tool_calls?.[0]?.result).toMatch(/^app\.js:39:/);
    // The responses name the model; the replies take the previous call's, not metadata's provider-prefixed llm_model.
    expect(new Set(ep.turns.map((t) => t.model))).toEqual(new Set(['claude-3-5-sonnet-20241022']));
    expect(ep.turns[7]?.notes).toEqual(['model inferred from the previous call (this one logged no model_response)']);
    expect(warnings).toEqual([]);
  });

  it('a later prompt and the condenser\'s summary are the next call\'s inputs; a prompt never answered is a final message', async () => {
    const a = await readOneEpisode(openHandsImporter, join(sessions, SESSION_A, 'metadata.json'));
    // Counted by hand: session A's events hold 2 user messages (4, 18) and one condensation (21).
    expect(a.turns.map((t) => (t.inputs ?? []).map((m) => m.role))).toEqual([[], [], [], [], [], ['user', 'summary'], [], []]);
    expect(a.turns[5]?.inputs?.[0]).toEqual({ role: 'user', text: 'Please also add a button that clears all completed todos.', timestamp: '2025-01-20T20:31:52.118204' });
    expect(a.turns[5]?.inputs?.[1]?.text).toMatch(/^USER_CONTEXT: Vue\.js todo app/);
    expect(a.final_messages ?? null).toBeNull();
    const b = await readOneEpisode(openHandsImporter, join(sessions, SESSION_B, 'metadata.json'));
    expect(b.turns.flatMap((t) => t.inputs ?? []).map((m) => m.text)).toEqual(['Now show the due date in red when a todo is overdue.']);
    expect(b.final_messages).toEqual([{ role: 'user', text: 'Thanks!', timestamp: '2025-01-20T20:35:02.004417' }]);
  });

  it('metadata.json totals beside the turns: B equal; A higher by the condenser\'s call, which logs no response', async () => {
    const a = await readOneEpisode(openHandsImporter, join(sessions, SESSION_A, 'metadata.json'));
    const b = await readOneEpisode(openHandsImporter, join(sessions, SESSION_B, 'metadata.json'));
    expect(a.log_totals).toEqual({ source: 'metadata.json', cost_usd: 0.092308, tokens: { in: 35_840, out: 2_921 } });
    expect(b.log_totals).toEqual({ source: 'metadata.json', cost_usd: 0.062701, tokens: { in: 23_284, out: 2_275 } });
    expect(tokenSums(b)).toMatchObject({ in: 23_284, out: 2_275 });
    expect(tokenSums(a)).toMatchObject({ in: 30_630, out: 2_509 });
  });

  it('a session whose totals were never written (all 0) has no totals, not totals of 0', async () => {
    const dir = join(tempDir(), 'sessions', SESSION_B);
    cpSync(join(sessions, SESSION_B), dir, { recursive: true });
    const meta = JSON.parse(readFileSync(join(dir, 'metadata.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(dir, 'metadata.json'), JSON.stringify({ ...meta, accumulated_cost: 0, prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }));
    expect((await readOneEpisode(openHandsImporter, join(dir, 'metadata.json'))).log_totals ?? null).toBeNull();
  });

  it('a bad event file refuses the session at that file and line; a missing event is said; no events folder is refused', async () => {
    const dir = join(tempDir(), 'sessions', SESSION_A);
    cpSync(join(sessions, SESSION_A), dir, { recursive: true });
    const meta = join(dir, 'metadata.json');
    const bad = join(dir, 'events', '22.json');
    writeFileSync(bad, JSON.stringify(JSON.parse(readFileSync(bad, 'utf8')), null, 2).replace('"prompt_tokens": 6412', '"prompt_tokens": -1'));
    const err = await rejectionOf(openHandsImporter, meta);
    expect(err.file).toBe(bad);
    expect(readFileSync(bad, 'utf8').split('\n')[err.line - 1]).toContain('-1');

    rmSync(bad);
    const { episodes, warnings } = await readEpisodes(openHandsImporter, meta);
    expect(episodes[0]?.turns).toHaveLength(7);
    expect(warnings).toEqual([`${SESSION_A}: event file(s) 22 missing from events/; read without them`]);

    rmSync(join(dir, 'events'), { recursive: true });
    expect((await rejectionOf(openHandsImporter, meta)).reason).toMatch(/no events folder/);
  });
});

describe('OpenHands importer: the logs\' own totals and messages on the real files', () => {
  it('resolver output: metrics.accumulated_cost equals the sum of the turns, one cost per call', async () => {
    const { episodes } = await readEpisodes(openHandsImporter, resolver);
    const [five, one] = episodes;
    expect(five?.log_totals).toEqual({ source: 'metrics', cost_usd: 0.070713, requests: 4, tokens: null });
    expect(one?.log_totals).toEqual({ source: 'metrics', cost_usd: 1.152933, requests: 22, tokens: null });
    const total = (ep: CanonicalEpisode | undefined) => ep?.turns.reduce((a, t) => a + (t.cost_usd ?? 0), 0) ?? 0;
    expect(total(five)).toBeCloseTo(five?.log_totals?.cost_usd ?? NaN, 9);
    expect(total(one)).toBeCloseTo(one?.log_totals?.cost_usd ?? NaN, 9);
    expect(five?.turns).toHaveLength(five?.log_totals?.requests ?? -1);
    expect(one?.turns).toHaveLength(one?.log_totals?.requests ?? -1);
  });

  it('counted by hand: each real file has one user message (the task), no later prompt, no summary', async () => {
    for (const file of [gui, resolver, join(shared, 'openhands/basic_gui_mode.json')]) {
      const { episodes } = await readEpisodes(openHandsImporter, file);
      for (const ep of episodes) {
        expect(ep.turns.flatMap((t) => t.inputs ?? []), file).toEqual([]);
        expect(ep.final_messages ?? null, file).toBeNull();
      }
    }
    // A saved event list records no totals.
    expect((await readOneEpisode(openHandsImporter, gui)).log_totals ?? null).toBeNull();
  });
});

describe('OpenHands importer: broken files', () => {
  it('a corrupt JSON Lines line is refused at its line', async () => {
    const file = copyWith(resolver, (text) => text.replace(/\n(.)/, '\n{oops$1'));
    const err = await rejectionOf(openHandsImporter, file);
    expect(err.line).toBe(2);
    expect(err.reason).toMatch(/invalid JSON/);
  });

  it('a truncated event list is refused with its line', async () => {
    const file = copyWith(gui, (text) => text.slice(0, 20_000));
    const err = await rejectionOf(openHandsImporter, file);
    expect(err.reason).toMatch(/invalid JSON/);
    expect(err.line).toBeGreaterThan(1);
  });

  it('hostile values are refused at the line of the value', async () => {
    const negative = copyWith(gui, (text) => text.replace('"prompt_tokens": 3439', '"prompt_tokens": -5'));
    const err = await rejectionOf(openHandsImporter, negative);
    expect(err.reason).toMatch(/prompt_tokens/);
    expect(readFileSync(negative, 'utf8').split('\n')[err.line - 1]).toContain('-5');

    const huge = copyWith(resolver, (text) => text.replace('"accumulated_cost":0.070713', '"accumulated_cost":1e308'));
    expect((await rejectionOf(openHandsImporter, huge)).line).toBe(1);

    const wrongType = copyWith(resolver, (text) => text.replace('"costs":[0.015396', '"costs":["x"'));
    expect(await rejectionOf(openHandsImporter, wrongType)).toMatchObject({ line: 1 });

    const notArray = copyWith(gui, (text) => text.replace('"source": "agent"', '"source": 7'));
    expect((await rejectionOf(openHandsImporter, notArray)).reason).toMatch(/source/);
  });

  it('a line nested too deep to re-serialise is refused at its line (found by fuzzing)', async () => {
    const file = copyWith(resolver, (text) => text.replace('"costs":[0.015396', `"deep":${'['.repeat(5000)}${']'.repeat(5000)},"costs":[0.015396`));
    const err = await rejectionOf(openHandsImporter, file);
    expect(err.line).toBe(1);
    expect(err.reason).toMatch(/nested deeper/);
  });

  it('an event list with no agent action is refused', async () => {
    const file = join(tempDir(), 'empty.json');
    writeFileSync(file, JSON.stringify([{ id: 0, timestamp: '2025-01-01T00:00:00', source: 'user', action: 'message', args: { content: 'hi' } }]));
    expect((await rejectionOf(openHandsImporter, file)).reason).toMatch(/no agent action/);
  });
});

describe('OpenHands importer: detection', () => {
  it('claims exactly the OpenHands samples, and not the legacy bare-array mini-swe-agent trajectory', () => {
    const claimed = claimedFiles(openHandsImporter, [join(fixtures, 'samples'), shared]);
    expect(claimed.map((f) => basename(f)).sort()).toEqual([
      'basic_gui_mode.json', 'basic_gui_mode.json', 'metadata.json', 'metadata.json', 'resolver-output.jsonl', 'resolver-output.jsonl',
    ]);
    // No importer reads a session's event files or cache pages on their own.
    for (const f of walk(sessions).filter((p) => basename(p) !== 'metadata.json')) expect(detectImporter(head(f), basename(f)), f).toBeNull();
    const legacy = join(fixtures, 'samples/mtrouter/local.traj.json');
    expect(openHandsImporter.detect(head(legacy), 'local.traj.json')).toBe(false);
    expect(miniSweAgentImporter.detect(head(gui), 'basic_gui_mode.json')).toBe(false);
  });
});
