import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../db/database.ts';
import { useTempDir } from '../testing/tmp.ts';
import { clineImporter } from './cline.ts';
import { detectImporter, importPaths } from './pipeline.ts';
import { head, readEpisodes, readOneEpisode, rejectionOf } from './testing.ts';

const fixtures = fileURLToPath(new URL('../../fixtures/', import.meta.url));
const TASK = 'gmfstu-task-1769053680585';
const sample = join(fixtures, 'samples/cline', TASK);
const ui = join(sample, 'ui_messages.json');
const history = join(sample, 'api_conversation_history.json');
const tempDir = useTempDir();

/** A copy of the sample task folder (same folder name), to break or remove one of its files. */
function taskCopy(): string {
  const dir = join(tempDir(), TASK);
  cpSync(sample, dir, { recursive: true });
  return dir;
}

function sums(turns: { tokens?: { in?: number | null; out?: number | null; cached?: number | null; cache_write?: number | null } | null; cost_usd?: number | null }[]) {
  const s = { in: 0, out: 0, cached: 0, cache_write: 0, cost: 0 };
  for (const t of turns) {
    s.in += t.tokens?.in ?? 0;
    s.out += t.tokens?.out ?? 0;
    s.cached += t.tokens?.cached ?? 0;
    s.cache_write += t.tokens?.cache_write ?? 0;
    s.cost += t.cost_usd ?? 0;
  }
  return s;
}

describe('Cline importer: the real task folder (fixtures/samples/cline, PROVENANCE.md)', () => {
  it('one turn per request with the hand-counted model, mode, tokens and logged cost', async () => {
    const { episodes, warnings } = await readEpisodes(clineImporter, ui);
    expect(warnings).toEqual([]);
    const [ep] = episodes;
    expect(ep?.turns).toHaveLength(47);
    expect(ep?.episode_id).toBe(TASK);
    expect(ep?.run).toBe('cline');
    expect(ep?.agent).toEqual({ name: 'cline', version: '3.51.0' });
    expect(new Set(ep?.turns.map((t) => `${t.model} ${t.role}`))).toEqual(new Set(['claude-sonnet-4-5-20250929 act']));
    const s = sums(ep?.turns ?? []);
    // tokensIn 470 leaves the cache out (Anthropic's convention): canonical `in` is the whole input.
    expect(s.in).toBe(470 + 1_514_932 + 66_105);
    expect(s.out).toBe(23_389);
    expect(s.cached).toBe(1_514_932);
    expect(s.cache_write).toBe(66_105);
    expect(s.cost).toBeCloseTo(1.05461835, 8);
    expect(ep?.turns[0]?.tokens).toEqual({ in: 9583, out: 595, cached: 0, cache_write: 9573 });
    // The task folder states no total of its own.
    expect(ep?.log_totals ?? null).toBeNull();
  });

  it('tool calls joined to their "[tool for …] Result:" text; the prompt is the task, reminders are inputs', async () => {
    const ep = await readOneEpisode(clineImporter, ui);
    const calls = ep.turns.flatMap((t) => t.tool_calls ?? []);
    expect(calls).toHaveLength(47);
    expect(calls.filter((c) => c.result != null)).toHaveLength(46);
    const first = ep.turns[0];
    expect(first?.action).toMatchObject({ type: 'tool', tool: 'read', text: 'read_file: ActionSystem.cs' });
    expect(first?.tool_calls?.[0]?.result).toMatch(/^\[read_file for 'ActionSystem\.cs'\] Result:\nusing System;/);
    expect(first?.message).toMatch(/^I'll help you secure and extend/);
    expect(first?.reasoning).toMatch(/^This is a complex task/);
    expect(ep.task.text).toMatch(/^You have been given a Dockerized codebase/);
    expect(first?.inputs?.map((m) => m.role)).toEqual(['system', 'system']);
    expect(first?.inputs?.[1]?.text).toMatch(/^<environment_details>/);
    expect(ep.turns.at(-1)?.action.type).toBe('submit');
    expect(ep.outcome.exit).toBe('completion_result');
  });
});

describe('Cline importer: which file is the trajectory', () => {
  it('both JSON files are Cline, not mini-swe-agent (which claimed the history as 47 turns of model "unknown")', () => {
    expect(detectImporter(head(ui), basename(ui))?.format).toBe('cline');
    expect(detectImporter(head(history), basename(history))?.format).toBe('cline');
  });

  it('a folder import gives one episode: the history is read with ui_messages.json, the rest are sidecars', async () => {
    const db = openDatabase(join(tempDir(), 'c.db'));
    const report = await importPaths(db, [sample]);
    expect(report.files.map((f) => [basename(f.path), f.status, f.format, f.episodes, f.turns])).toEqual([
      ['ui_messages.json', 'imported', 'cline', 1, 47],
    ]);
    const ignored = Object.fromEntries(report.ignored.map((i) => [basename(i.path), i.reason]));
    expect(ignored['api_conversation_history.json']).toMatch(/read with ui_messages\.json/);
    expect(ignored['task_metadata.json']).toMatch(/sidecar of cline/);
    expect(ignored['focus_chain_taskid_1769053680585.md']).toMatch(/sidecar of cline/);
    // Named on its own, the history gives the same episode, which the database already holds.
    const again = await importPaths(db, [history]);
    expect(again.files[0]?.format).toBe('cline');
    expect(db.prepare('SELECT COUNT(*) FROM episodes').pluck().get()).toBe(1);
    db.close();
  });

  it('the history alone gives the same turns as ui_messages.json', async () => {
    const a = await readOneEpisode(clineImporter, ui);
    const b = await readOneEpisode(clineImporter, history);
    expect(b).toEqual(a);
  });
});

describe('Cline importer: broken copies', () => {
  it('a truncated ui_messages.json is refused at its line', async () => {
    const dir = taskCopy();
    const file = join(dir, 'ui_messages.json');
    writeFileSync(file, readFileSync(file, 'utf8').slice(0, 50_000));
    const err = await rejectionOf(clineImporter, file);
    expect(err.file).toBe(file);
    expect(err.reason).toMatch(/invalid JSON/);
    expect(err.line).toBeGreaterThan(0);
  });

  it('an api_req_started whose text is not JSON is refused, naming the message', async () => {
    const dir = taskCopy();
    const file = join(dir, 'ui_messages.json');
    const messages = JSON.parse(readFileSync(file, 'utf8')) as { say?: string; text?: string }[];
    const at = messages.findIndex((m) => m.say === 'api_req_started');
    (messages[at] as { text: string }).text = '{"request":"cut off';
    writeFileSync(file, JSON.stringify(messages, null, 1));
    const err = await rejectionOf(clineImporter, file);
    expect(err.reason).toMatch(new RegExp(`^\\[${at}\\]\\.text: api_req_started text is not JSON`));
    expect(err.line).toBeGreaterThan(1);
  });

  it('a truncated history beside a good ui_messages.json refuses the task, naming the history', async () => {
    const dir = taskCopy();
    const file = join(dir, 'api_conversation_history.json');
    writeFileSync(file, readFileSync(file, 'utf8').slice(0, 20_000));
    const err = await rejectionOf(clineImporter, join(dir, 'ui_messages.json'));
    expect(err.file).toBe(file);
    expect(err.reason).toMatch(/invalid JSON/);
  });

  it('without the history: every request still a turn with its cost, and a warning says what is missing', async () => {
    const dir = taskCopy();
    rmSync(join(dir, 'api_conversation_history.json'));
    const { episodes, warnings } = await readEpisodes(clineImporter, join(dir, 'ui_messages.json'));
    const ep = episodes[0];
    expect(ep?.turns).toHaveLength(47);
    expect(sums(ep?.turns ?? []).cost).toBeCloseTo(1.05461835, 8);
    expect(warnings.join('\n')).toMatch(/api_conversation_history\.json missing/);
    expect(ep?.turns[0]?.tool_calls?.[0]?.name).toBe('readFile');
  });

  it('without ui_messages.json: the history still gives 47 turns, model from modelInfo, cost unknown (not 0)', async () => {
    const dir = taskCopy();
    rmSync(join(dir, 'ui_messages.json'));
    const { episodes, warnings } = await readEpisodes(clineImporter, join(dir, 'api_conversation_history.json'));
    const ep = episodes[0];
    expect(ep?.turns).toHaveLength(47);
    expect(ep?.turns.every((t) => t.model === 'claude-sonnet-4-5-20250929' && t.cost_usd == null)).toBe(true);
    // metrics.tokens: prompt 10 + cached (reads and writes together) 9573.
    expect(ep?.turns[0]?.tokens).toMatchObject({ in: 9583, out: 595, cached: null });
    expect(warnings.join('\n')).toMatch(/ui_messages\.json missing/);
  });
});

describe('Cline importer: Roo Code', () => {
  it('tokensIn logged with apiProtocol already counts the cache, and is not counted twice', async () => {
    // Shape of Roo Code's ui_messages.json (no request text, no modelInfo) as in Extremity/scratchspace's
    // ui_messages.json (2026); the usage is one request of the IBM Bob (Roo fork) log quoted in a public repo:
    // {"apiProtocol":"openai","tokensIn":2855,"tokensOut":2264,"cacheWrites":2853,"cacheReads":0,"cost":0.012797}.
    const dir = join(tempDir(), '1787366936311');
    cpSync(sample, dir, { recursive: true, filter: (src) => !src.endsWith('.json') || src === sample });
    writeFileSync(join(dir, 'ui_messages.json'), JSON.stringify([
      { ts: 1777689175089, type: 'say', say: 'text', text: 'generate a new bloom filter algo in js', images: [] },
      { ts: 1777689175125, type: 'say', say: 'api_req_started', text: JSON.stringify({ apiProtocol: 'openai', tokensIn: 2855, tokensOut: 2264, cacheWrites: 2853, cacheReads: 0, cost: 0.012797 }) },
      { ts: 1777689178919, type: 'say', say: 'text', text: "I'll create a new Bloom filter algorithm implementation in JavaScript.", partial: false },
    ]));
    const { episodes, warnings } = await readEpisodes(clineImporter, join(dir, 'ui_messages.json'));
    const turn = episodes[0]?.turns[0];
    expect(turn?.tokens).toEqual({ in: 2855, out: 2264, cached: 0, cache_write: 2853 });
    expect(turn?.cost_usd).toBe(0.012797);
    expect(episodes[0]?.agent?.name).toBe('roo-code');
    expect(warnings.join('\n')).toMatch(/tokensIn read as including cache/);
  });
});
