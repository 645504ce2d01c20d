import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../db/database.ts';
import { useTempDir } from '../testing/tmp.ts';
import { codexCliImporter } from './codexCli.ts';
import { importPaths } from './pipeline.ts';
import { claimedFiles, editJsonLine, readEpisodes, readOneEpisode, rejectionOf, tokenSums } from './testing.ts';

const fixtures = fileURLToPath(new URL('../../fixtures/', import.meta.url));
const sample = join(fixtures, 'samples/codex/vct-codex.jsonl');
const unedited = join(fixtures, 'samples/codex/vct-codex-unedited.jsonl');
// Constructed from the real rollout (fixtures/samples/codex/forked/PROVENANCE.md): its first five calls as the
// parent, and a subagent thread forked after them that replays them, then makes the real calls 6-8 as its own.
const forkedParent = join(fixtures, 'samples/codex/forked/rollout-2025-09-19T09-02-12-01996135-afde-7911-97f0-d863511ecaf0.jsonl');
const forkedChild = join(fixtures, 'samples/codex/forked/rollout-2025-09-19T09-04-11-01996137-7ef8-7b2e-89a1-c3d4e5f6a7b8.jsonl');
const PARENT_ID = '01996135-afde-7911-97f0-d863511ecaf0';
const CHILD_ID = '01996137-7ef8-7b2e-89a1-c3d4e5f6a7b8';
const SHARED = '/work/shared/data';
const tempDir = useTempDir();

const readOne = (file: string) => readOneEpisode(codexCliImporter, file);

type Line = { type: string; payload: { type?: string; role?: string } };
const parsed = (file: string): Line[] =>
  readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Line);

function write(lines: string[], name = 'rollout-test.jsonl'): string {
  const file = join(tempDir(), name);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

const rawLines = (file: string) => readFileSync(file, 'utf8').split('\n').filter((l) => l.trim());

/** The rollout rewritten in current Codex's order: each call's items first, then its token_count. */
function itemsFirst(file: string): string[] {
  const out: string[] = [];
  let held: string | null = null;
  for (const l of rawLines(file)) {
    const type = (JSON.parse(l) as Line).type;
    const isUsage = l.includes('"type":"token_count"') || l.includes('"type": "token_count"');
    if (isUsage) {
      held = l;
      continue;
    }
    if (type === 'turn_context' && held) {
      out.push(held);
      held = null;
    }
    out.push(l);
  }
  if (held) out.push(held);
  return out;
}

describe('Codex CLI importer: the real rollout', () => {
  it('reproduces the PROVENANCE hand counts', async () => {
    const lines = parsed(sample);
    expect(lines.filter((l) => l.type === 'turn_context')).toHaveLength(19);
    expect(lines.filter((l) => l.payload.type === 'token_count')).toHaveLength(19);
    expect(lines.filter((l) => l.payload.type === 'message' && l.payload.role === 'assistant')).toHaveLength(9);
    expect(lines.filter((l) => l.payload.type === 'message' && l.payload.role === 'user')).toHaveLength(2); // 1 is <environment_context>

    const { episodes, warnings } = await readEpisodes(codexCliImporter, sample);
    expect(warnings).toEqual([]); // the per-call usages add up to the final total
    const [ep] = episodes;
    if (!ep) throw new Error('no episode');
    expect(ep.run).toBe('codex/claude-code');
    expect(ep.episode_id).toBe('01996135-afde-7911-97f0-d863511eca56');
    expect(ep.agent).toEqual({ name: 'codex', version: '0.39.0' });
    expect(ep.turns).toHaveLength(19);
    expect(new Set(ep.turns.map((t) => t.model))).toEqual(new Set(['aide-gpt-5']));
    expect(tokenSums(ep)).toEqual({ in: 270_530, out: 12_551, cached: 136_832, reasoning: 9_536 });
    const calls = ep.turns.flatMap((t) => t.tool_calls ?? []);
    expect(calls).toHaveLength(19);
    expect(calls.filter((c) => c.name === 'exec')).toHaveLength(1); // the custom_tool_call
    expect(calls.every((c) => c.result !== null)).toBe(true);
    expect(ep.task.text).toMatch(/^# Context from my IDE setup:/);
    expect(ep.turns.every((t) => t.cost_usd == null)).toBe(true);
  });

  it('each turn is one model call: its own usage, its commands and their results', async () => {
    const ep = await readOne(sample);
    const [first, second] = ep.turns;
    expect(first?.tokens).toEqual({ in: 5645, out: 810, cached: 5504, cache_write: null, reasoning: 640 });
    expect(first?.action).toMatchObject({ type: 'tool', tool: 'plan' });
    expect(second?.action).toEqual({ type: 'tool', tool: 'bash', text: 'bash: ls -la' });
    expect(second?.tool_calls?.[0]).toMatchObject({ id: 'call_pEqHamKTEvL6ofrtlsNEi8dt', is_error: false });
    expect(second?.observation).toMatch(/^total 124\n/);
    expect(second?.errors).toEqual([]);
    // The assistant message of the call, beside its command.
    expect(second?.message).toBe('Scanning the repo for go.mod, Python version references, and TODO.md before making changes.');
    expect(first?.message).toMatch(/^I’ll scan the repo for go\.mod and Python version references, update go\.mod to 1\.24/);
    // "patch rejected" is plain text with no exit code: the log does not say it failed, so the rules decide.
    const rejected = ep.turns.find((t) => t.observation === 'patch rejected: empty patch');
    expect(rejected?.errors).toBeNull();
  });

  it('the unedited upstream rollout ends with the final answer as a message turn', async () => {
    const ep = await readOne(unedited);
    expect(ep.turns).toHaveLength(19);
    expect(ep.turns.flatMap((t) => t.tool_calls ?? [])).toHaveLength(18);
    expect(ep.turns[18]?.action).toMatchObject({ type: 'message', text: expect.stringMatching(/^Here’s what I changed/) as unknown });
    // The final answer is the action text itself, not repeated as a message.
    expect(ep.turns[18]?.message ?? null).toBeNull();
    expect(tokenSums(ep)).toEqual({ in: 270_530, out: 12_551, cached: 136_832, reasoning: 9_536 });
  });
});

describe('Codex CLI importer: cutting calls in either order', () => {
  it('current order (items, then their token_count) gives the same turns', async () => {
    const old = await readOne(unedited);
    const now = await readOne(write(itemsFirst(unedited)));
    expect(now.turns.map((t) => [t.tokens, t.action.text, t.tool_calls?.length])).toEqual(
      old.turns.map((t) => [t.tokens, t.action.text, t.tool_calls?.length]),
    );
  });

  it('a repeated token_count (rate-limit refresh) or one without info is not a call', async () => {
    const lines = itemsFirst(unedited);
    const at = lines.findIndex((l) => l.includes('token_count'));
    const noInfo = JSON.stringify({ timestamp: 'x', type: 'event_msg', payload: { type: 'token_count', info: null, rate_limits: {} } });
    lines.splice(at + 1, 0, lines[at] ?? '', noInfo);
    const ep = await readOne(write(lines));
    expect(ep.turns).toHaveLength(19);
    expect(tokenSums(ep).in).toBe(270_530);
  });

  it('a call cut off before its token_count keeps its items, without tokens', async () => {
    const lines = itemsFirst(unedited);
    const last = lines.map((l) => l.includes('token_count')).lastIndexOf(true);
    lines.splice(last, 1);
    const { episodes, warnings } = await readEpisodes(codexCliImporter, write(lines));
    const ep = episodes[0];
    expect(ep?.turns).toHaveLength(19);
    expect(ep?.turns[18]?.tokens).toBeNull();
    expect(ep?.turns[18]?.notes?.[0]).toMatch(/no token_count/);
    // The running total it would have carried is gone with it, so the others still add up.
    expect(warnings).toEqual([]);
  });

  it('without last_token_usage, tokens are the difference of running totals (noted)', async () => {
    const lines = rawLines(unedited).map((l) => {
      const r = JSON.parse(l) as { payload: { type?: string; info?: Record<string, unknown> } };
      if (r.payload.type !== 'token_count' || !r.payload.info) return l;
      delete r.payload.info.last_token_usage;
      return JSON.stringify(r);
    });
    const ep = await readOne(write(lines));
    expect(tokenSums(ep)).toEqual({ in: 270_530, out: 12_551, cached: 136_832, reasoning: 9_536 });
    expect(ep.turns[1]?.tokens?.in).toBe(5822);
    expect(ep.turns[1]?.notes).toEqual([expect.stringMatching(/difference of two running totals/)]);
  });
});

describe('Codex CLI importer: broken copies of the real rollout', () => {
  it('truncated mid-line: refused at the last line', async () => {
    const text = readFileSync(sample, 'utf8');
    const cut = text.slice(0, Math.floor(text.length / 2));
    const file = join(tempDir(), 'cut.jsonl');
    writeFileSync(file, cut);
    const err = await rejectionOf(codexCliImporter, file);
    expect(err.line).toBe(cut.split('\n').length);
    expect(err.reason).toMatch(/invalid JSON/);
  });

  it('a corrupted line, a missing field, wrong types and hostile numbers: refused at their line', async () => {
    const edit = (lineNo: number, f: (r: { payload: Record<string, unknown> }) => void) => write(editJsonLine(rawLines(sample), lineNo, f));
    const corrupt = write(rawLines(sample).map((l, i) => (i === 40 ? l.slice(0, 30) : l)));
    expect((await rejectionOf(codexCliImporter, corrupt)).line).toBe(41);
    const usage = (v: unknown) => (r: { payload: Record<string, unknown> }) => {
      ((r.payload.info as Record<string, unknown>).last_token_usage as Record<string, unknown>).input_tokens = v;
    };
    for (const bad of [-1, 'many', 1e12, 2.5]) {
      const err = await rejectionOf(codexCliImporter, edit(14, usage(bad)));
      expect(err.line, String(bad)).toBe(14);
      expect(err.reason).toMatch(/input_tokens/);
    }
    const noName = await rejectionOf(codexCliImporter, edit(17, (r) => {
      delete r.payload.name;
    }));
    expect(noName.line).toBe(17);
    const noMeta = await rejectionOf(codexCliImporter, write(rawLines(sample).slice(1)));
    expect(noMeta.line).toBe(1);
    expect(noMeta.reason).toMatch(/session_meta/);
    const blankModel = await rejectionOf(codexCliImporter, edit(5, (r) => {
      r.payload.model = ' ';
    }));
    expect(blankModel.reason).toMatch(/model/);
    expect(blankModel.line).toBe(7); // the call's token_count line
  });
});

describe('Codex CLI importer: detection', () => {
  it('claims the Codex rollouts and nothing else', () => {
    const shared = existsSync(SHARED);
    const claimed = claimedFiles(codexCliImporter, [join(fixtures, 'samples'), SHARED]);
    expect(claimed.map((f) => basename(f)).sort()).toEqual(
      [
        'rollout-2025-09-19T09-04-11-01996137-7ef8-7b2e-89a1-c3d4e5f6a7b8.jsonl',
        'rollout-2025-09-19T09-02-12-01996135-afde-7911-97f0-d863511ecaf0.jsonl',
        'vct-codex-unedited.jsonl',
        'vct-codex.jsonl',
        ...(shared ? ['vct-codex.jsonl'] : []),
      ].sort(),
    );
  });
});

/** The real totals at the parent's fifth call (where the fork replays up to) and at the eighth (the child's last). */
const AT_FIFTH = { in: 34_322, cached: 5_504, out: 4_459, reasoning: 3_904 };
const AT_EIGHTH = { in: 71_852, cached: 19_840, out: 6_691, reasoning: 5_824 };
const CHILD_OWN = { in: 71_852 - 34_322, cached: 19_840 - 5_504, out: 6_691 - 4_459, reasoning: 5_824 - 3_904 };

type RolloutRecord = { timestamp: string; type: string; payload: Record<string, unknown> };
const records = (file: string): RolloutRecord[] => rawLines(file).map((l) => JSON.parse(l) as RolloutRecord);
const toLines = (rs: RolloutRecord[]): string[] => rs.map((r) => JSON.stringify(r));

describe('Codex CLI importer: a forked subagent thread', () => {
  it('the replayed parent history is not the thread\'s: 3 own calls on its own model, linked to its parent', async () => {
    const { episodes, warnings } = await readEpisodes(codexCliImporter, forkedChild);
    expect(warnings).toEqual([]);
    const [child] = episodes;
    if (!child) throw new Error('no episode');
    expect(child.episode_id).toBe(CHILD_ID);
    expect(child).toMatchObject({ kind: 'subagent', parent: { episode_id: PARENT_ID, t: null } });
    // Before: 8 turns, 5 of them aide-gpt-5 (the parent's), a switch that never happened, 2.5x the tokens.
    expect(child.turns).toHaveLength(3);
    expect(child.turns.map((t) => t.model)).toEqual(['gpt-5-mini', 'gpt-5-mini', 'gpt-5-mini']);
    expect(tokenSums(child)).toEqual(CHILD_OWN);
    expect(child.task.text).toBe('Find every hardcoded Python version string in this repository and list each file and line.');
    expect(child.turns[0]?.notes?.[0]).toMatch(/01996135-afde-7911-97f0-d863511ecaf0's history replayed \(lines 2–42, 5 model call\(s\)\)/);
    // The thread's running total carries on from the parent's: the log's own total for the thread is the difference.
    expect(child.log_totals).toEqual({
      source: "the last token_count's total_token_usage less the total the replayed parent history ended on",
      tokens: { ...CHILD_OWN, cache_write: null },
    });
  });

  it('parent and child imported together count each model response once', async () => {
    const root = join(tempDir(), 'sessions');
    mkdirSync(root);
    copyFileSync(forkedParent, join(root, basename(forkedParent)));
    copyFileSync(forkedChild, join(root, basename(forkedChild)));
    const db = openDatabase(join(tempDir(), 'fork.db'));
    const report = await importPaths(db, [root]);
    for (const f of report.files) expect(f.status, f.reason).toBe('imported');
    const rows = db
      .prepare('SELECT ext_id, parent_ext_id, kind, n_turns FROM episodes ORDER BY ext_id')
      .all() as { ext_id: string; parent_ext_id: string | null; kind: string | null; n_turns: number }[];
    expect(rows).toEqual([
      { ext_id: PARENT_ID, parent_ext_id: null, kind: null, n_turns: 5 },
      { ext_id: CHILD_ID, parent_ext_id: PARENT_ID, kind: 'subagent', n_turns: 3 },
    ]);
    const sums = db.prepare('SELECT SUM(tokens_in) AS "in", SUM(tokens_out) AS out, SUM(tokens_cached) AS cached FROM turns').get();
    // The tree holds the real rollout's first eight calls, once each.
    expect(sums).toEqual({ in: AT_EIGHTH.in, out: AT_EIGHTH.out, cached: AT_EIGHTH.cached });
    db.close();
    const parent = await readOne(forkedParent);
    expect(tokenSums(parent)).toEqual(AT_FIFTH);
    expect(parent.log_totals?.tokens).toEqual({ ...AT_FIFTH, cache_write: null });
  });

  it('a thread whose running total starts from zero: its last total is its own', async () => {
    let replayedTotal: Record<string, number> | null = null;
    let own = false;
    const rs = records(forkedChild).map((r) => {
      if (r.type === 'event_msg' && r.payload.type === 'task_started' && String(r.payload.turn_id).startsWith('01996137')) own = true;
      const info = r.payload.info as { total_token_usage: Record<string, number> } | undefined;
      if (r.payload.type !== 'token_count' || !info) return r;
      if (!own) replayedTotal = info.total_token_usage;
      else if (replayedTotal) {
        const base = replayedTotal;
        info.total_token_usage = Object.fromEntries(Object.entries(info.total_token_usage).map(([k, v]) => [k, v - (base[k] ?? 0)]));
      }
      return r;
    });
    const { episodes, warnings } = await readEpisodes(codexCliImporter, write(toLines(rs)));
    expect(warnings).toEqual([]);
    expect(tokenSums(episodes[0] ?? (null as never))).toEqual(CHILD_OWN);
    expect(episodes[0]?.log_totals).toEqual({ source: "the last token_count's total_token_usage", tokens: { ...CHILD_OWN, cache_write: null } });
  });

  it('ids without a time: the replay ends at the second task_started (noted); a fork without thread_spawn is a fork', async () => {
    const rs = records(forkedChild);
    const meta = rs[0]?.payload as { id: string; source?: unknown };
    meta.id = 'child-thread';
    delete meta.source;
    const ep = await readOne(write(toLines(rs)));
    expect(ep).toMatchObject({ episode_id: 'child-thread', kind: 'fork', parent: { episode_id: PARENT_ID } });
    expect(tokenSums(ep)).toEqual(CHILD_OWN);
    expect(ep.turns[0]?.notes?.[0]).toMatch(/read from the order of task_started/);
  });

  it('a forked thread that never started its own task has no turns, and says why', async () => {
    const rs = records(forkedChild);
    const ownStart = rs.findIndex((r) => r.payload.type === 'task_started' && String(r.payload.turn_id).startsWith('01996137'));
    const { episodes, warnings } = await readEpisodes(codexCliImporter, write(toLines(rs.slice(0, ownStart))));
    expect(episodes[0]?.turns).toEqual([]);
    expect(episodes[0]?.log_totals ?? null).toBeNull();
    expect(warnings).toEqual([expect.stringMatching(/no task_started of its own/)]);
  });
});

describe('Codex CLI importer: a session whose only call failed', () => {
  // The real rollout's opening (meta, injected context, the prompt, turn_context), then the error event a model
  // that refuses tool use answers with (event shape as Codex writes it: {type: "error", message}); no token_count.
  const refused = 'unexpected status 400 Bad Request: {"error":{"message":"This model does not support tools."}}';
  const failedSession = (): string =>
    write([
      // Its own session id, so that it can sit beside the real session in one run.
      ...editJsonLine<RolloutRecord>(rawLines(unedited), 1, (r) => {
        r.payload.id = '01996140-0000-7000-8000-000000000001';
      }).slice(0, 5),
      JSON.stringify({ timestamp: '2025-09-19T09:02:13.101Z', type: 'event_msg', payload: { type: 'error', message: refused } }),
    ]);

  it('is an episode with no turns whose exit names the failure', async () => {
    const { episodes, warnings } = await readEpisodes(codexCliImporter, failedSession());
    expect(warnings).toEqual([]);
    const ep = episodes[0];
    expect(ep?.turns).toEqual([]);
    expect(ep?.outcome.exit).toBe(`error: ${refused}`);
    expect(ep?.task.text).toMatch(/^# Context from my IDE setup:/);
    expect(ep?.log_totals ?? null).toBeNull();
    // The injected context never reached a model that answered: kept after the (absent) last response.
    expect(ep?.final_messages?.map((m) => m.role)).toEqual(['system']);
  });

  it('goes through the import pipeline beside a good session', async () => {
    const root = join(tempDir(), 'sessions');
    mkdirSync(root);
    copyFileSync(failedSession(), join(root, 'rollout-failed.jsonl'));
    copyFileSync(unedited, join(root, 'rollout-ok.jsonl'));
    const db = openDatabase(join(tempDir(), 'failed.db'));
    const report = await importPaths(db, [root]);
    expect(report.files.map((f) => [basename(f.path), f.status, f.episodes, f.turns])).toEqual([
      ['rollout-failed.jsonl', 'imported', 1, 0],
      ['rollout-ok.jsonl', 'imported', 1, 19],
    ]);
    expect(db.prepare('SELECT n_turns, exit_reason FROM episodes ORDER BY n_turns').all()).toEqual([
      { n_turns: 0, exit_reason: `error: ${refused}` },
      { n_turns: 19, exit_reason: null },
    ]);
    db.close();
  });
});

describe('Codex CLI importer: what the model read between calls', () => {
  it('the real rollout: one prompt (the task) and the injected context before the first call', async () => {
    // Hand count: 2 user messages, one of them <environment_context>; 1 user_message event, the task.
    const messages = records(unedited).filter((r) => r.type === 'response_item' && r.payload.type === 'message' && r.payload.role === 'user');
    expect(messages).toHaveLength(2);
    const ep = await readOne(unedited);
    expect(ep.turns[0]?.inputs).toEqual([
      { role: 'system', text: expect.stringMatching(/^<environment_context>/) as unknown, timestamp: '2025-09-19T09:02:12.512Z' },
    ]);
    expect(ep.turns.slice(1).every((t) => t.inputs == null)).toBe(true);
    expect(ep.final_messages ?? null).toBeNull();
  });

  it('prompts typed later land, in order and with their time, before the call that read them', async () => {
    // Two follow-up prompts as Codex 0.39 writes one (a user message item and its user_message event twin), put
    // after the real call 8 (before the token_count of call 9, line 58) and after the final answer.
    const prompt = (at: string, text: string): string[] => [
      JSON.stringify({ timestamp: at, type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] } }),
      JSON.stringify({ timestamp: at, type: 'event_msg', payload: { type: 'user_message', message: text, kind: 'plain' } }),
    ];
    const lines = rawLines(unedited);
    const edited = [
      ...lines.slice(0, 56),
      ...prompt('2025-09-19T09:06:20.000Z', 'Also check the Dockerfile.'),
      ...lines.slice(56),
      ...prompt('2025-09-19T09:10:00.000Z', 'Thanks, commit it.'),
    ];
    const ep = await readOne(write(edited));
    expect(ep.turns).toHaveLength(19);
    const withPrompts = ep.turns.filter((t) => t.inputs?.some((m) => m.role === 'user'));
    expect(withPrompts.map((t) => [t.t, t.inputs])).toEqual([
      [8, [{ role: 'user', text: 'Also check the Dockerfile.', timestamp: '2025-09-19T09:06:20.000Z' }]],
    ]);
    expect(ep.final_messages).toEqual([{ role: 'user', text: 'Thanks, commit it.', timestamp: '2025-09-19T09:10:00.000Z' }]);
    expect(ep.task.text).toMatch(/^# Context from my IDE setup:/);
  });
});
