import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../testing/tmp.ts';
import { geminiCliImporter } from './geminiCli.ts';
import { claimedFiles, editJsonLine, readEpisodes, readOneEpisode, rejectionOf, tokenSums } from './testing.ts';

const fixtures = fileURLToPath(new URL('../../fixtures/', import.meta.url));
const samples = join(fixtures, 'samples/gemini-cli');
const jsonl = join(samples, 'vct-gemini.jsonl');
const legacy2026 = join(samples, 'vct-gemini-legacy-2026-03.json');
const legacy2025 = join(samples, 'vct-gemini-legacy-2025-10.json');
const tempDir = useTempDir();
/** The shared real-data folder of this workspace, scanned too when present. */
const SHARED = '/work/shared/data';

const readOne = (file: string) => readOneEpisode(geminiCliImporter, file);

/** The sample's lines, edited, in a temporary file. */
function edited(edit: (lines: string[]) => string[], source = jsonl): string {
  const lines = readFileSync(source, 'utf8').split('\n');
  const file = join(tempDir(), basename(source));
  writeFileSync(file, edit(lines).join('\n'));
  return file;
}

describe('Gemini CLI importer: the real JSON Lines session', () => {
  it('one turn per unique gemini message id, last rewrite wins (PROVENANCE hand counts)', async () => {
    const records = readFileSync(jsonl, 'utf8').split('\n').filter((l) => l.includes('"type": "gemini"') || l.includes('"type":"gemini"'));
    expect(records).toHaveLength(11);
    const ep = await readOne(jsonl);
    expect(ep.run).toBe('gemini-cli');
    expect(ep.episode_id).toBe('0ab84937-9fe7-4284-986a-33c832af0b6a');
    expect(ep.turns).toHaveLength(6);
    expect(ep.turns.map((t) => t.model)).toEqual([
      ...Array<string>(5).fill('gemini-3-flash-preview'),
      'gemini-3.1-pro-preview',
    ]);
    // in = input (cached included) + tool; out = output + thoughts; reasoning = thoughts.
    expect(tokenSums(ep)).toEqual({ in: 202_586, out: 2_152 + 2_141, cached: 48_951, reasoning: 2_141 });
    expect(ep.turns.every((t) => t.cost_usd == null)).toBe(true);
    const calls = ep.turns.flatMap((t) => t.tool_calls ?? []);
    expect(calls).toHaveLength(12);
    expect(calls.every((c) => c.result && c.is_error === false && c.id)).toBe(true);
    expect(ep.task.text).toContain('generate a comprehensive GEMINI.md');
    expect(ep.started_at).toBe('2026-04-23T12:52:52.759Z');
    expect(ep.outcome).toEqual({});
  });

  it('says what each response did: tool summaries, results, thoughts and timestamps', async () => {
    const ep = await readOne(jsonl);
    const [first, , third, , fifth] = ep.turns;
    expect(first?.action.type).toBe('tool');
    expect(first?.action.text?.split('\n').slice(1)).toEqual(['Read README.md', 'Read pyproject.toml', 'Read CLAUDE.md', 'Read Makefile']);
    expect(first?.errors).toEqual([]);
    expect(first?.reasoning).toMatch(/^Initiating File Generation: /);
    expect(first?.observation).toContain('AI-Powered Discord Bot');
    expect(third?.action).toMatchObject({ type: 'tool', tool: 'edit', text: 'Write GEMINI.md' });
    expect(fifth?.action.type).toBe('message');
    expect(fifth?.tool_calls).toBeNull();
    expect(fifth?.errors).toBeNull();
    expect(fifth?.timestamp).toBe('2026-04-23T12:53:53.357Z');
    expect(ep.turns[5]?.action.text).toMatch(/^update_topic\(.*\n(Edit GEMINI\.md)$/s);
    // The content written beside the tool calls is the message; a plain reply is its action text alone.
    expect(ep.turns[3]?.action.type).toBe('tool');
    expect(ep.turns[3]?.message).toMatch(/^我已經完成了對專案的深入分析，並根據發現的架構、技術棧和開發規範產生了 `GEMINI\.md` 檔案。/);
    expect(first?.message ?? null).toBeNull();
    expect(fifth?.message ?? null).toBeNull();
  });

  it('--run overrides the run name', async () => {
    const { episodes } = await readEpisodes(geminiCliImporter, jsonl, 'mine');
    expect(episodes[0]?.run).toBe('mine');
  });
});

describe('Gemini CLI importer: every message of the session', () => {
  it('later user messages and the CLI’s notices are the next response’s inputs; the last notice is final', async () => {
    // Counted in the file: info, user (the task), 4 responses, user "System: Please continue.", a response, a second
    // user prompt, a response, info "Request cancelled.".
    const ep = await readOne(jsonl);
    expect(ep.turns.map((t) => t.inputs?.map((m) => [m.role, m.text]) ?? null)).toEqual([
      [['assistant', 'Empty GEMINI.md created. Now analyzing the project to populate it.']],
      null,
      null,
      null,
      [['user', 'System: Please continue.']],
      [['user', '幫我做一個小修改 請幫我將上面確保執行時要透過 uv run 來執行 避免環境有問題']],
    ]);
    expect(ep.turns[5]?.inputs?.[0]?.timestamp).toBe('2026-04-23T12:54:16.106Z');
    expect(ep.final_messages).toEqual([{ role: 'assistant', text: 'Request cancelled.', timestamp: '2026-04-23T12:58:35.591Z' }]);
    expect(ep.task.text).toMatch(/^\nYou are an AI agent that brings the power of Gemini/);
    expect(ep.log_totals).toBeUndefined();
  });

  it('the single-document sessions hold one user message each: the task, nothing else', async () => {
    for (const file of [legacy2025, legacy2026]) {
      const ep = await readOne(file);
      expect(ep.task.text).not.toBeNull();
      expect(ep.turns.every((t) => t.inputs == null)).toBe(true);
      expect(ep.final_messages).toBeNull();
    }
  });
});

describe('Gemini CLI importer: the older single-document sessions', () => {
  it('2026-03 document with tool calls: 3 responses of gemini-3.1-pro-preview-customtools', async () => {
    const ep = await readOne(legacy2026);
    expect(ep.episode_id).toBe('8a20078e-2d5e-4f81-a640-9b879bbb7e6d');
    expect(ep.turns.map((t) => t.model)).toEqual(Array(3).fill('gemini-3.1-pro-preview-customtools'));
    expect(tokenSums(ep)).toEqual({ in: 76_348, out: 9_325 + 11_616, cached: 39_826, reasoning: 11_616 });
    expect(ep.turns.flatMap((t) => t.tool_calls ?? [])).toHaveLength(7);
    expect(ep.task.text).toMatch(/^請幫我依照專案實際狀況更新 README\.md/);
  });

  it('2025-10 document with string contents: 13 responses of gemini-2.5-pro', async () => {
    const ep = await readOne(legacy2025);
    expect(ep.turns).toHaveLength(13);
    expect(new Set(ep.turns.map((t) => t.model))).toEqual(new Set(['gemini-2.5-pro']));
    expect(tokenSums(ep)).toEqual({ in: 176_179, out: 851 + 1_546, cached: 121_305, reasoning: 1_546 });
    expect(ep.turns[0]?.action).toMatchObject({ type: 'message', text: expect.stringMatching(/^好的/) as unknown });
  });

  it('a cut-off document is refused at the line where it stops', async () => {
    const text = readFileSync(legacy2025, 'utf8');
    const file = join(tempDir(), 'cut.json');
    writeFileSync(file, text.slice(0, 6000));
    const err = await rejectionOf(geminiCliImporter, file);
    expect(err.reason).toMatch(/invalid JSON/);
    expect(err.line).toBe(text.slice(0, 6000).split('\n').length);
  });

  it('a wrong type inside a message is refused at that message', async () => {
    const doc = JSON.parse(readFileSync(legacy2025, 'utf8')) as { messages: { tokens: { input: unknown } }[] };
    const target = doc.messages[3];
    if (target) target.tokens.input = 'many';
    const file = join(tempDir(), 'bad.json');
    const text = JSON.stringify(doc, null, 2);
    writeFileSync(file, text);
    const err = await rejectionOf(geminiCliImporter, file);
    expect(err.reason).toMatch(/messages\[3\].*tokens\.input/);
    const id = (doc.messages[3] as unknown as { id: string }).id;
    expect(err.line).toBe(text.slice(0, text.indexOf(`"${id}"`)).split('\n').length);
  });
});

describe('Gemini CLI importer: record semantics', () => {
  it('$rewindTo drops the message and everything after it', async () => {
    const file = edited((lines) => [...lines.filter((l) => l.trim()), JSON.stringify({ $rewindTo: '0752be32-e23d-4786-bc5f-e06ee1d8a56c' })]);
    const ep = await readOne(file);
    expect(ep.turns).toHaveLength(4);
    expect(ep.turns.every((t) => t.model === 'gemini-3-flash-preview')).toBe(true);
  });

  it('a $set of messages replaces the history', async () => {
    const lines = readFileSync(jsonl, 'utf8').split('\n').filter((l) => l.trim());
    const kept = lines.map((l) => JSON.parse(l) as { id?: string; type?: string }).filter((r) => r.type === 'user' || r.id === 'edf94f05-ab0f-46aa-8811-d3db8103da28');
    const file = edited((ls) => [...ls.filter((l) => l.trim()), JSON.stringify({ $set: { messages: kept.slice(-3) } })]);
    const ep = await readOne(file);
    expect(ep.turns).toHaveLength(1);
    expect(ep.turns[0]?.tool_calls).toHaveLength(1);
  });

  it('a subagent recording names its parent session from its folder', async () => {
    const dir = join(tempDir(), 'chats', 'parent-session-id');
    mkdirSync(dir, { recursive: true });
    const lines = readFileSync(jsonl, 'utf8').split('\n');
    const header = JSON.parse(lines[0] ?? '{}') as Record<string, unknown>;
    lines[0] = JSON.stringify({ ...header, kind: 'subagent', directories: ['/home/u/proj'] });
    const file = join(dir, 'child.jsonl');
    writeFileSync(file, lines.join('\n'));
    const ep = await readOne(file);
    expect(ep.kind).toBe('subagent');
    expect(ep.parent).toEqual({ episode_id: 'parent-session-id' });
    expect(ep.task.category).toBe('proj');
    expect(ep.run).toBe('gemini-cli');
  });

  it('a session with no model response yields nothing and says so', async () => {
    const file = edited((lines) => lines.slice(0, 5));
    const { episodes, warnings } = await readEpisodes(geminiCliImporter, file);
    expect(episodes).toHaveLength(0);
    expect(warnings[0]).toMatch(/no model responses/);
  });
});

describe('Gemini CLI importer: broken copies of the real session', () => {
  it('truncated mid-line: refused at the last line', async () => {
    const text = readFileSync(jsonl, 'utf8');
    const file = join(tempDir(), 'cut.jsonl');
    const cut = text.slice(0, Math.floor(text.length * 0.6));
    writeFileSync(file, cut);
    const err = await rejectionOf(geminiCliImporter, file);
    expect(err.line).toBe(cut.split('\n').length);
    expect(err.reason).toMatch(/invalid JSON/);
  });

  it('a corrupted line: refused at that line', async () => {
    const err = await rejectionOf(geminiCliImporter, edited((l) => l.map((s, i) => (i === 8 ? s.slice(0, 40) : s))));
    expect(err.line).toBe(9);
  });

  it('wrong types and hostile numbers: refused at their line', async () => {
    const set = (lineNo: number, edit: (r: Record<string, unknown>) => void) => edited((lines) => editJsonLine(lines, lineNo, edit));
    const tokens = (v: unknown) => (r: Record<string, unknown>) => {
      (r.tokens as Record<string, unknown>).input = v;
    };
    for (const bad of ['12', -5, 1e300, 1.5]) {
      const err = await rejectionOf(geminiCliImporter, set(12, tokens(bad)));
      expect(err.line, String(bad)).toBe(12);
      expect(err.reason).toMatch(/tokens\.input/);
    }
    const noName = await rejectionOf(geminiCliImporter, set(14, (r) => {
      (r.toolCalls as Record<string, unknown>[])[0] = { id: 'x' };
    }));
    expect(noName.line).toBe(14);
    const blankModel = await rejectionOf(geminiCliImporter, set(20, (r) => {
      r.model = ' ';
    }));
    expect(blankModel.line).toBe(20);
    expect(blankModel.reason).toMatch(/model/);
    const noHeader = await rejectionOf(geminiCliImporter, edited((l) => ['[1, 2]', ...l.slice(1)]));
    expect(noHeader.line).toBe(1);
  });
});

describe('Gemini CLI importer: detection', () => {
  it('claims the Gemini CLI samples and nothing else', () => {
    const shared = existsSync(SHARED);
    const claimed = claimedFiles(geminiCliImporter, [join(fixtures, 'samples'), SHARED]);
    expect(claimed.map((f) => basename(f)).sort()).toEqual(
      [
        'vct-gemini-legacy-2025-10.json',
        'vct-gemini-legacy-2026-03.json',
        'vct-gemini.jsonl',
        ...(shared ? ['vct-gemini.jsonl'] : []),
      ].sort(),
    );
  });
});
