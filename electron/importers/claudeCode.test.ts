// The Claude Code importer on the real samples (hand counts from shared/data/claude-code/PROVENANCE.md).
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { CanonicalEpisode, CanonicalTurn } from '../../shared/canonical.ts';
import { openDatabase } from '../db/database.ts';
import { useTempDir } from '../testing/tmp.ts';
import { claudeCodeImporter } from './claudeCode.ts';
import { importPaths } from './pipeline.ts';
import { claimedFiles, readEpisodes, readOneEpisode, rejectionOf, walk } from './testing.ts';

const samples = fileURLToPath(new URL('../../fixtures/samples/', import.meta.url));
const dir = join(samples, 'claude-code');
const SESSION = '8463c716-a2ea-4c14-9efa-87158ebd9f20';
const main = join(dir, 'spotter', `${SESSION}.jsonl`);
const subagent = join(dir, 'spotter', SESSION, 'subagents', 'agent-a7be2f0.jsonl');
const compaction = join(dir, 'spotter', SESSION, 'subagents', 'agent-acompact-f46190.jsonl');
const vct = join(dir, 'vct-claude_code.jsonl');
const tempDir = useTempDir();

const sum = (ep: CanonicalEpisode, f: (t: CanonicalTurn) => number | null | undefined): number =>
  ep.turns.reduce((a, t) => a + (f(t) ?? 0), 0);
const toolUses = (ep: CanonicalEpisode): number => sum(ep, (t) => t.tool_calls?.length);
/** Anthropic's own input_tokens, as hand-counted: canonical `in` less the cache reads and writes. */
const rawInput = (ep: CanonicalEpisode): number => sum(ep, (t) => (t.tokens?.in ?? 0) - (t.tokens?.cached ?? 0) - (t.tokens?.cache_write ?? 0));

describe('claude-code importer: real sessions', () => {
  it('main session: 143 API calls on opus with the hand-counted tokens and 177 tool calls', async () => {
    const ep = await readOneEpisode(claudeCodeImporter, main);
    expect(ep.turns).toHaveLength(143);
    expect(new Set(ep.turns.map((t) => t.model))).toEqual(new Set(['claude-opus-4-6']));
    expect(rawInput(ep)).toBe(2_481);
    expect(sum(ep, (t) => t.tokens?.out)).toBe(40_320);
    expect(sum(ep, (t) => t.tokens?.cached)).toBe(15_740_561);
    expect(sum(ep, (t) => t.tokens?.cache_write)).toBe(260_451);
    // Canonical `in` counts every input token.
    expect(sum(ep, (t) => t.tokens?.in)).toBe(2_481 + 15_740_561 + 260_451);
    expect(toolUses(ep)).toBe(177);
    expect(ep).toMatchObject({
      run: 'claude-code/spotter',
      episode_id: SESSION,
      task: { type: 'claude-code', category: 'spotter' },
      outcome: {},
      agent: { name: 'claude-code', version: '2.1.39' },
      started_at: '2026-02-11T21:41:44.800Z',
    });
    expect(ep.parent ?? null).toBeNull();
    expect(ep.task.text).toMatch(/^Work on bead spotter-fum\./);
    expect(ep.outcome.success ?? null).toBeNull();
    expect(ep.turns.some((t) => t.cost_usd != null)).toBe(false);
  });

  it('joins tool results to their calls, marks failed ones, keeps thinking and replies apart', async () => {
    const ep = await readOneEpisode(claudeCodeImporter, main);
    const first = ep.turns[0] as CanonicalTurn;
    expect(first.action).toEqual({ type: 'tool', tool: 'bash', text: 'bash: bd show spotter-fum\nbash: bd ready' });
    expect(first.reasoning).toBe('Let me start by looking at the bead details and finding ready tasks.');
    expect(first.tool_calls?.[0]).toMatchObject({ id: 'toolu_014D6RS6UhSsm9MXDD3g9EYX', name: 'Bash' });
    expect(first.observation).toBe(first.tool_calls?.map((c) => c.result).join('\n\n'));
    expect(first.observation).toMatch(/^○ spotter-fum \[EPIC\]/);
    expect(first.timestamp).toBe('2026-02-11T21:41:48.049Z');
    // Every call has its result; 13 results say is_error: true.
    expect(ep.turns.flatMap((t) => t.tool_calls ?? []).every((c) => c.result !== null)).toBe(true);
    expect(sum(ep, (t) => t.errors?.filter((e) => e.type === 'tool_error').length)).toBe(13);
    const replies = ep.turns.filter((t) => t.action.type === 'message');
    expect(replies.length).toBe(143 - ep.turns.filter((t) => t.tool_calls).length);
    expect(replies.every((t) => t.errors === null && t.tool_calls === null)).toBe(true);
  });

  it('keeps the words written before the tool calls as the message; a plain reply is the action text alone', async () => {
    const ep = await readOneEpisode(claudeCodeImporter, main);
    // Turn 0 wrote only a blank text block before its calls: no message.
    expect(ep.turns[0]?.message ?? null).toBeNull();
    const claim = ep.turns[2] as CanonicalTurn;
    expect(claim.action.text).toMatch(/^bash: /);
    expect(claim.message).toBe('Let me claim this task and start exploring the codebase.');
    // Two text blocks of one response (a blank one skipped), in order.
    expect(ep.turns[14]?.message).toMatch(/^Credo reports nesting too deep in `classify_text_lines`\./);
    const replies = ep.turns.filter((t) => t.action.type === 'message');
    expect(replies.every((t) => (t.message ?? null) === null)).toBe(true);
    expect(ep.turns.filter((t) => t.message).length).toBe(76);
  });

  it('marks the first call after the compaction', async () => {
    const ep = await readOneEpisode(claudeCodeImporter, main);
    const noted = ep.turns.filter((t) => t.notes?.some((n) => n.includes('compacted')));
    expect(noted.map((t) => t.t)).toEqual([71]);
    expect(noted[0]?.notes?.[0]).toContain('auto trigger, 167731 tokens before');
  });

  it('haiku subagent: a child of the turn whose Task call launched it, 13 calls, 19 tool calls', async () => {
    const { episodes, warnings } = await readEpisodes(claudeCodeImporter, subagent);
    const ep = episodes[0] as CanonicalEpisode;
    expect(warnings).toEqual([]);
    expect(ep.turns).toHaveLength(13);
    expect(toolUses(ep)).toBe(19);
    expect(new Set(ep.turns.map((t) => t.model))).toEqual(new Set(['claude-haiku-4-5-20251001']));
    expect(ep).toMatchObject({
      run: 'claude-code/spotter',
      episode_id: `${SESSION}/agent-a7be2f0`,
      kind: 'subagent',
      parent: { episode_id: SESSION, t: 89, tool_call_id: 'toolu_017SvvKc8KLbhGMG3tXkf21Z' },
    });
    expect(ep.task.text).toMatch(/^I need to understand:/);
    // The parent's turn 89 is the one with that Task call.
    const parent = await readOneEpisode(claudeCodeImporter, main);
    expect(parent.turns[89]?.tool_calls?.map((c) => [c.name, c.id])).toContainEqual(['Task', 'toolu_017SvvKc8KLbhGMG3tXkf21Z']);
    expect(parent.turns[89]?.action.tool).toBe('subagent');
  });

  it('compaction sidechain: one call, kind and role compaction, child of the last turn before the compaction', async () => {
    const ep = await readOneEpisode(claudeCodeImporter, compaction);
    expect(ep.turns).toHaveLength(1);
    expect(ep.turns[0]).toMatchObject({ model: 'claude-opus-4-6', role: 'compaction' });
    expect(ep).toMatchObject({ kind: 'compaction', episode_id: `${SESSION}/agent-acompact-f46190`, parent: { episode_id: SESSION, t: 70 } });
    expect(ep.task.text).toMatch(/^Your task is to create a detailed summary/);
  });

  it('vct session (Claude Code 1.0.95): 32 calls on sonnet 4, hand-counted tokens, 31 tool calls', async () => {
    const { episodes, warnings } = await readEpisodes(claudeCodeImporter, vct);
    const ep = episodes[0] as CanonicalEpisode;
    expect(episodes).toHaveLength(1);
    expect(ep.turns).toHaveLength(32);
    expect(new Set(ep.turns.map((t) => t.model))).toEqual(new Set(['claude-sonnet-4-20250514']));
    expect(rawInput(ep)).toBe(158);
    expect(sum(ep, (t) => t.tokens?.out)).toBe(3_860);
    expect(sum(ep, (t) => t.tokens?.cached)).toBe(1_093_509);
    expect(sum(ep, (t) => t.tokens?.cache_write)).toBe(99_004);
    expect(sum(ep, (t) => t.tokens?.in)).toBe(158 + 1_093_509 + 99_004);
    expect(toolUses(ep)).toBe(31);
    // A file alone: the run is named for the working directory in the log.
    expect(ep.run).toBe('claude-code/claude-code');
    expect(ep.episode_id).toBe('e9f146fa-3b20-48d0-9be4-d99ca901cae4');
    // The call logged with `usage: {}` has unknown tokens, not zero.
    expect(ep.turns[31]?.tokens ?? null).toBeNull();
    expect(warnings).toEqual([expect.stringMatching(/2 session ids/)]);
  });

  it('--run overrides the run name', async () => {
    const ep = await readOneEpisode(claudeCodeImporter, vct, 'mine');
    expect(ep.run).toBe('mine');
  });
});

describe('claude-code importer: one-hour cache writes', () => {
  it('keeps the one-hour part of the cache writes (usage.cache_creation), as hand-counted', async () => {
    // python3 over the last line per message.id: spotter main writes 260,451 tokens, all ephemeral_1h; the vct
    // session (1.0.95) 99,004, all ephemeral_5m.
    const spotter = await readOneEpisode(claudeCodeImporter, main);
    expect(sum(spotter, (t) => t.tokens?.cache_write_1h)).toBe(260_451);
    expect(spotter.turns.every((t) => t.tokens?.cache_write_1h === t.tokens?.cache_write)).toBe(true);
    const sub = await readOneEpisode(claudeCodeImporter, subagent);
    expect(sum(sub, (t) => t.tokens?.cache_write_1h)).toBe(13_554);
    const old = await readOneEpisode(claudeCodeImporter, vct);
    expect(old.turns.filter((t) => t.tokens != null).every((t) => t.tokens?.cache_write_1h === 0)).toBe(true);
  });

  it('a log without the split leaves the one-hour part unknown; more one-hour writes than writes is refused', async () => {
    const lines = readFileSync(vct, 'utf8').split('\n');
    // A response written as one line, so its usage is the one kept.
    const idOf = (l: string): string | null => (l.includes('"cache_creation":{') ? (JSON.parse(l) as { message: { id: string } }).message.id : null);
    const ids = lines.map(idOf);
    const n = ids.findIndex((id) => id !== null && ids.indexOf(id) === ids.lastIndexOf(id));
    const o = JSON.parse(lines[n] as string) as { message: { usage: Record<string, unknown> } };
    delete o.message.usage.cache_creation;
    const file = join(tempDir(), 'nosplit.jsonl');
    writeFileSync(file, [...lines.slice(0, n), JSON.stringify(o), ...lines.slice(n + 1)].join('\n'));
    const ep = await readOneEpisode(claudeCodeImporter, file);
    expect(ep.turns.filter((t) => t.tokens != null && t.tokens.cache_write_1h == null)).toHaveLength(1);

    o.message.usage.cache_creation = { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 1e6 };
    writeFileSync(file, [...lines.slice(0, n), JSON.stringify(o), ...lines.slice(n + 1)].join('\n'));
    expect(await rejectionOf(claudeCodeImporter, file)).toMatchObject({ line: n + 1, reason: expect.stringMatching(/ephemeral_1h_input_tokens: 1000000 is more than/) });
  });
});

describe('claude-code importer: side questions and other forks of the conversation', () => {
  // Built by hand from the real spotter session (fixtures/constructed/claude-code-aside/PROVENANCE.md): its first
  // 32 lines (6 responses) copied under their own ids, then the side question and one answer of its own.
  const aside = fileURLToPath(new URL('../../fixtures/constructed/claude-code-aside/agent-aside_question-5f0c2a9e71d4b836.jsonl', import.meta.url));
  const tree = (): { root: string; file: string } => {
    const root = join(tempDir(), 'projects');
    const sub = join(root, 'spotter', SESSION, 'subagents');
    mkdirSync(sub, { recursive: true });
    copyFileSync(main, join(root, 'spotter', `${SESSION}.jsonl`));
    copyFileSync(aside, join(sub, 'agent-aside_question-5f0c2a9e71d4b836.jsonl'));
    return { root, file: join(sub, 'agent-aside_question-5f0c2a9e71d4b836.jsonl') };
  };

  it('a side question is a child of the turn it forked from, with only its own response as a turn', async () => {
    const { file } = tree();
    const { episodes, warnings } = await readEpisodes(claudeCodeImporter, file);
    const ep = episodes[0] as CanonicalEpisode;
    expect(ep.turns).toHaveLength(1);
    expect(ep).toMatchObject({
      episode_id: `${SESSION}/agent-aside_question-5f0c2a9e71d4b836`,
      kind: 'side_question',
      parent: { episode_id: SESSION, t: 5, tool_call_id: null },
      task: { text: 'Side question: what does `bd ready` list, in one sentence?' },
    });
    expect(ep.turns[0]).toMatchObject({
      model: 'claude-opus-4-6',
      action: { type: 'message', text: expect.stringMatching(/^`bd ready` lists/) },
      tokens: { in: 3 + 23_000 + 1_200, out: 31, cached: 23_000, cache_write: 1_200, cache_write_1h: 1_000 },
    });
    // The copied conversation is the parent's: not repeated as this episode's inputs.
    expect(ep.turns[0]?.inputs ?? null).toBeNull();
    expect(warnings).toEqual([expect.stringMatching(/^6 response\(s\) copied from the parent session/)]);
  });

  it('a session tree counts each response once: 143 + 1 opus calls, not 143 + 7', async () => {
    const { root } = tree();
    const db = openDatabase(join(tempDir(), 'aside.db'));
    const report = await importPaths(db, [root]);
    for (const f of report.files) expect(f.status, f.reason).toBe('imported');
    expect(report.files.reduce((n, f) => n + f.turns, 0)).toBe(143 + 1);
    const outTokens = db.prepare('SELECT SUM(tokens_out) FROM turns').pluck().get();
    expect(outTokens).toBe(40_320 + 31);
    db.close();
  });

  it('alone, without its parent, the copies cannot be told from its own responses: kept, with a warning', async () => {
    const { episodes, warnings } = await readEpisodes(claudeCodeImporter, aside);
    expect(episodes[0]?.turns).toHaveLength(7);
    expect(episodes[0]?.parent).toMatchObject({ episode_id: SESSION, t: null });
    expect(warnings).toEqual([expect.stringMatching(/not found .*cannot be told apart/)]);
  });
});

describe('claude-code importer: every message between responses', () => {
  // Hand count (python3 over the vct session's user lines, tool results aside): 4 prompts typed, 2 slash commands,
  // 2 interruption notices, 2 local-command outputs, 2 caveats (isMeta); before turns 5, 19, 22 and 31.
  it('vct: the first prompt is the task; the 3 later prompts and 2 slash commands are user inputs of the turn they preceded', async () => {
    const ep = await readOneEpisode(claudeCodeImporter, vct);
    expect(ep.task.text).toMatch(/^幫我檢查一下 go\.mod/);
    const inputs = ep.turns.flatMap((t) => (t.inputs ?? []).map((m) => ({ t: t.t, ...m })));
    expect(inputs.filter((m) => m.role === 'user').map((m) => [m.t, m.text.slice(0, 12), m.timestamp])).toEqual([
      [5, 'toolchain不用保', '2025-08-28T12:58:18.216Z'],
      [19, '<command-nam', '2025-08-28T13:09:13.737Z'],
      [19, '幫我查一下 golang', '2025-08-28T13:09:25.724Z'],
      [22, '不對 幫我查一下pyda', '2025-08-28T13:11:10.638Z'],
      [31, '<command-nam', '2025-08-28T13:13:47.546Z'],
    ]);
    expect(inputs.filter((m) => m.role === 'user' && m.text.startsWith('<command-name>')).map((m) => /\/\w+/.exec(m.text)?.[0])).toEqual(['/mcp', '/exit']);
    const system = inputs.filter((m) => m.role === 'system');
    expect(system.map((m) => m.t)).toEqual([5, 19, 19, 22, 31, 31]);
    expect(system.filter((m) => m.text.startsWith('[Request interrupted by user'))).toHaveLength(2);
    expect(system.filter((m) => m.text.startsWith('<local-command-stdout>'))).toHaveLength(2);
    expect(system.filter((m) => m.text.startsWith('Caveat:'))).toHaveLength(2);
    // The inputs of a turn are in the order they were logged.
    expect(ep.turns[19]?.inputs?.map((m) => m.role)).toEqual(['system', 'user', 'system', 'user']);
    expect(ep.final_messages ?? null).toBeNull();
  });

  it('spotter: the compaction summary and the task notification reach the turns after them', async () => {
    const ep = await readOneEpisode(claudeCodeImporter, main);
    const inputs = ep.turns.flatMap((t) => (t.inputs ?? []).map((m) => ({ t: t.t, role: m.role, text: m.text })));
    expect(inputs.map((m) => [m.t, m.role])).toEqual([[71, 'summary'], [142, 'system']]);
    expect(inputs[0]?.text).toMatch(/^This session is being continued from a previous conversation/);
    expect(inputs[1]?.text).toMatch(/^<task-notification>/);
  });

  it('messages after the last response are final_messages; <synthetic> replies are kept as assistant messages', async () => {
    const lines = readFileSync(vct, 'utf8').split('\n').filter((l) => l.trim() !== '');
    const template = JSON.parse(lines.find((l) => l.includes('"type":"assistant"')) as string);
    const prompt = JSON.parse(lines[0] as string);
    const asked = { ...prompt, uuid: 'late-1', timestamp: '2025-08-28T13:20:00.000Z', message: { role: 'user', content: 'one more thing' } };
    const synthetic = {
      ...template, uuid: 'late-2', timestamp: '2025-08-28T13:20:01.000Z',
      message: { ...template.message, id: undefined, model: '<synthetic>', content: [{ type: 'text', text: 'No response requested.' }] },
    };
    const file = join(tempDir(), 'late.jsonl');
    writeFileSync(file, [...lines, JSON.stringify(asked), JSON.stringify(synthetic)].join('\n'));
    const ep = await readOneEpisode(claudeCodeImporter, file);
    expect(ep.final_messages).toEqual([
      { role: 'user', text: 'one more thing', timestamp: '2025-08-28T13:20:00.000Z' },
      { role: 'assistant', text: 'No response requested.', timestamp: '2025-08-28T13:20:01.000Z' },
    ]);
  });
});

describe('claude-code importer: layout and odd lines', () => {
  it('a sidechain whose parent session is absent is still a child, with an unknown turn and a warning', async () => {
    const d = join(tempDir(), 'proj', SESSION, 'subagents');
    mkdirSync(d, { recursive: true });
    copyFileSync(subagent, join(d, 'agent-a7be2f0.jsonl'));
    const { episodes, warnings } = await readEpisodes(claudeCodeImporter, join(d, 'agent-a7be2f0.jsonl'));
    expect(episodes[0]).toMatchObject({ run: 'claude-code/proj', kind: 'subagent', parent: { episode_id: SESSION, t: null } });
    expect(warnings).toEqual([expect.stringMatching(/not found/)]);
  });

  it('2.0 layout: agent-<id>.jsonl beside its session file', async () => {
    const d = join(tempDir(), 'proj2');
    mkdirSync(d);
    copyFileSync(main, join(d, `${SESSION}.jsonl`));
    copyFileSync(subagent, join(d, 'agent-a7be2f0.jsonl'));
    const ep = await readOneEpisode(claudeCodeImporter, join(d, 'agent-a7be2f0.jsonl'));
    expect(ep).toMatchObject({ episode_id: `${SESSION}/agent-a7be2f0`, parent: { episode_id: SESSION, t: 89 } });
  });

  it('<synthetic> lines (local API-error messages) are not turns; sidechain lines in a session file are skipped', async () => {
    const lines = readFileSync(vct, 'utf8').split('\n');
    const template = JSON.parse(lines.find((l) => l.includes('"type":"assistant"')) as string);
    const synthetic = {
      ...template, uuid: 'x-1', isApiErrorMessage: true,
      message: { ...template.message, id: undefined, model: '<synthetic>', content: [{ type: 'text', text: 'API Error: 529 overloaded' }], usage: { input_tokens: 0, output_tokens: 0 } },
    };
    const side = { ...template, uuid: 'x-2', isSidechain: true, message: { ...template.message, id: 'side-1' } };
    const file = join(tempDir(), 'odd.jsonl');
    writeFileSync(file, [lines[0], JSON.stringify(synthetic), JSON.stringify(side), ...lines.slice(1)].join('\n'));
    const { episodes, warnings } = await readEpisodes(claudeCodeImporter, file);
    expect(episodes[0]?.turns).toHaveLength(32);
    expect(warnings).toEqual(expect.arrayContaining([expect.stringMatching(/1 local message line.*<synthetic>/), expect.stringMatching(/1 sidechain line/)]));
  });

  it('a session with no model call is refused, saying why', async () => {
    const file = join(tempDir(), 'empty.jsonl');
    writeFileSync(file, `${readFileSync(vct, 'utf8').split('\n')[0]}\n`);
    expect((await rejectionOf(claudeCodeImporter, file)).reason).toMatch(/no model calls/);
  });
});

describe('claude-code importer: broken and hostile copies', () => {
  /** A copy of the vct sample with line `n` (1-based) changed by `edit`. */
  const withLine = (n: number, edit: (o: Record<string, unknown>) => string | void): string => {
    const lines = readFileSync(vct, 'utf8').split('\n');
    const o = JSON.parse(lines[n - 1] as string) as Record<string, unknown>;
    // JSON.stringify cannot write 1e999 (it writes null): a placeholder string stands for it.
    lines[n - 1] = (edit(o) ?? JSON.stringify(o)).replace('"__1e999__"', '1e999');
    const file = join(tempDir(), `${SESSION}.jsonl`);
    writeFileSync(file, lines.join('\n'));
    return file;
  };
  const vctLines = readFileSync(vct, 'utf8').split('\n');
  const ids = vctLines.map((l) => /"type":"assistant"/.test(l) && l.includes('"usage":{"input_tokens"') ? (JSON.parse(l) as { message: { id: string } }).message.id : null);
  // A response written as one line: its usage is the one kept, so a bad sum is found there.
  const assistantLine = ids.findIndex((id) => id !== null && ids.indexOf(id) === ids.lastIndexOf(id)) + 1;
  const usage = (o: Record<string, unknown>) => (o.message as { usage: Record<string, unknown> }).usage;

  it('truncated: the cut last line is refused at its number', async () => {
    const bytes = readFileSync(main);
    const file = join(tempDir(), `${SESSION}.jsonl`);
    writeFileSync(file, bytes.subarray(0, 1_000_000));
    const lineCount = bytes.subarray(0, 1_000_000).toString('utf8').split('\n').length;
    const err = await rejectionOf(claudeCodeImporter, file);
    expect(err.line).toBe(lineCount);
    expect(err.reason).toMatch(/invalid JSON/);
  });

  it('a corrupt line, a line that is not an object', async () => {
    expect(await rejectionOf(claudeCodeImporter, withLine(5, () => '{"type":"user", oops'))).toMatchObject({ line: 5, reason: expect.stringMatching(/invalid JSON/) });
    expect(await rejectionOf(claudeCodeImporter, withLine(5, () => '[1,2]'))).toMatchObject({ line: 5, reason: expect.stringMatching(/one JSON object/) });
  });

  it('dropped and wrongly typed fields are refused at their line', async () => {
    const dropId = await rejectionOf(claudeCodeImporter, withLine(assistantLine, (o) => void delete (o.message as Record<string, unknown>).id));
    expect(dropId).toMatchObject({ line: assistantLine, reason: expect.stringMatching(/^message\.id: /) });
    const textTokens = await rejectionOf(claudeCodeImporter, withLine(assistantLine, (o) => void (usage(o).input_tokens = '12')));
    expect(textTokens).toMatchObject({ line: assistantLine, reason: expect.stringMatching(/^message\.usage\.input_tokens: /) });
    const content = await rejectionOf(claudeCodeImporter, withLine(assistantLine, (o) => void ((o.message as Record<string, unknown>).content = 7)));
    expect(content).toMatchObject({ line: assistantLine, reason: expect.stringMatching(/^message\.content: /) });
    const model = await rejectionOf(claudeCodeImporter, withLine(assistantLine, (o) => void ((o.message as Record<string, unknown>).model = ' ')));
    expect(model).toMatchObject({ line: assistantLine, reason: expect.stringMatching(/model/) });
    const userContent = await rejectionOf(claudeCodeImporter, withLine(1, (o) => void ((o.message as Record<string, unknown>).content = { a: 1 })));
    expect(userContent).toMatchObject({ line: 1, reason: expect.stringMatching(/^message\.content: /) });
    const type = await rejectionOf(claudeCodeImporter, withLine(2, (o) => void (o.type = 3)));
    expect(type).toMatchObject({ line: 2, reason: expect.stringMatching(/^type: /) });
  });

  it('hostile token counts are refused at their line', async () => {
    for (const bad of [-1, 1e20, 1.5, '__1e999__', '3']) {
      const file = withLine(assistantLine, (o) => void (usage(o).output_tokens = bad));
      expect(await rejectionOf(claudeCodeImporter, file)).toMatchObject({ line: assistantLine, reason: expect.stringMatching(/^message\.usage\.output_tokens: /) });
    }
    // Each count within bounds, their sum (canonical `in`) over them: refused at the line whose usage is kept.
    const sumOver = withLine(assistantLine, (o) => {
      Object.assign(usage(o), { input_tokens: 9e8, cache_read_input_tokens: 9e8 });
    });
    expect(await rejectionOf(claudeCodeImporter, sumOver)).toMatchObject({ line: assistantLine, reason: expect.stringMatching(/tokens\.in: /) });
  });
});

describe('claude-code detection', () => {
  const ours = (f: string): boolean => f.includes(`${'/'}claude-code${'/'}`) && f.endsWith('.jsonl');
  const roots = [samples, '/work/shared/data'];

  it('claims exactly the Claude Code samples among every sample file, and the registry picks claude-code for them', () => {
    const claimed = claimedFiles(claudeCodeImporter, roots);
    expect(claimed.length).toBeGreaterThanOrEqual(4);
    expect(claimed).toEqual(roots.filter((r) => existsSync(r)).flatMap(walk).filter(ours));
  });
});

describe('claude-code through the import pipeline', () => {
  it('imports a ~/.claude/projects-shaped folder: two projects, a session with its subagents, parents linked', async () => {
    const root = join(tempDir(), 'projects');
    const a = join(root, '-home-me-spotter');
    const sub = join(a, SESSION, 'subagents');
    mkdirSync(sub, { recursive: true });
    copyFileSync(main, join(a, `${SESSION}.jsonl`));
    copyFileSync(subagent, join(sub, 'agent-a7be2f0.jsonl'));
    copyFileSync(compaction, join(sub, 'agent-acompact-f46190.jsonl'));
    const b = join(root, '-home-wei-repo-claude-code');
    mkdirSync(b);
    copyFileSync(vct, join(b, 'e9f146fa-3b20-48d0-9be4-d99ca901cae4.jsonl'));

    const db = openDatabase(join(tempDir(), 'cc.db'));
    const report = await importPaths(db, [root]);
    for (const f of report.files) expect(f.status, f.reason).toBe('imported');
    expect(report.files.map((f) => f.format)).toEqual(['claude-code', 'claude-code', 'claude-code', 'claude-code']);
    expect(report.files.reduce((n, f) => n + f.turns, 0)).toBe(143 + 13 + 1 + 32);
    expect(db.prepare('SELECT name FROM runs ORDER BY name').pluck().all()).toEqual([
      'claude-code/-home-me-spotter',
      'claude-code/-home-wei-repo-claude-code',
    ]);
    const rows = db
      .prepare('SELECT ext_id, parent_ext_id, parent_t, kind, n_turns FROM episodes ORDER BY ext_id')
      .all() as { ext_id: string; parent_ext_id: string | null; parent_t: number | null; kind: string | null; n_turns: number }[];
    expect(rows).toEqual([
      { ext_id: SESSION, parent_ext_id: null, parent_t: null, kind: null, n_turns: 143 },
      { ext_id: `${SESSION}/agent-a7be2f0`, parent_ext_id: SESSION, parent_t: 89, kind: 'subagent', n_turns: 13 },
      { ext_id: `${SESSION}/agent-acompact-f46190`, parent_ext_id: SESSION, parent_t: 70, kind: 'compaction', n_turns: 1 },
      { ext_id: 'e9f146fa-3b20-48d0-9be4-d99ca901cae4', parent_ext_id: null, parent_t: null, kind: null, n_turns: 32 },
    ]);
    db.close();
  });
});
