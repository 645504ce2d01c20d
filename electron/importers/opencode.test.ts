import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../db/database.ts';
import { useTempDir } from '../testing/tmp.ts';
import { openCodeImporter } from './opencode.ts';
import { importPaths } from './pipeline.ts';
import { claimedFiles, readEpisodes, readOneEpisode, rejectionOf, tokenSums } from './testing.ts';

const samples = fileURLToPath(new URL('../../fixtures/samples/opencode/', import.meta.url));
const exportFile = join(samples, 'session__hidden-river__ses_39b709b7fffea1aT6PAuEvX6Zq.json');
const storage = join(samples, 'storage');
const PROJECT = '51ce91990cdb80fb62489f7028ffc023d69077fd';
const PARENT = 'ses_39b709b7fffea1aT6PAuEvX6Zq';
const CHILD = 'ses_39b5fba2effeZTqL4zPbbsOeop';
/** The shared real-data folder of this workspace, scanned too when present. */
const SHARED = '/work/shared/data';
const tempDir = useTempDir();

interface Part { type: unknown; [key: string]: unknown }
interface Message { info: Record<string, unknown>; parts: Part[] }
interface Export { info: Record<string, unknown>; messages: Message[] }

const readOne = (file: string) => readOneEpisode(openCodeImporter, file);
const sample = (): Export => JSON.parse(readFileSync(exportFile, 'utf8')) as Export;

/** The real export, edited, in a temporary file written as `opencode export` writes (two-space indent). */
function editedExport(edit: (doc: Export) => void): string {
  const doc = sample();
  edit(doc);
  const file = join(tempDir(), basename(exportFile));
  writeFileSync(file, JSON.stringify(doc, null, 2));
  return file;
}

/** The export's own objects filed as OpenCode's storage folder files them; returns the session file. */
function asStorage(doc: Export, root: string): string {
  const write = (path: string, value: unknown): void => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, JSON.stringify(value, null, 2));
  };
  const id = doc.info['id'] as string;
  const sessionFile = join(root, 'session', doc.info['projectID'] as string, `${id}.json`);
  write(sessionFile, doc.info);
  for (const m of doc.messages) {
    const messageID = m.info['id'] as string;
    write(join(root, 'message', id, `${messageID}.json`), m.info);
    for (const p of m.parts) write(join(root, 'part', messageID, `${p['id'] as string}.json`), p);
  }
  return sessionFile;
}

describe('OpenCode importer: the real export (PROVENANCE hand counts)', () => {
  it('one turn per step-finish, model and agent per message, tokens with cache reads added to input', async () => {
    const ep = await readOne(exportFile);
    expect(ep.episode_id).toBe(PARENT);
    expect(ep.run).toBe('opencode');
    expect(ep.agent).toEqual({ name: 'opencode', version: '1.2.5' });
    // 38 assistant messages, one aborted before its first step: 37 calls.
    expect(ep.turns).toHaveLength(37);
    expect(new Set(ep.turns.map((t) => t.model))).toEqual(new Set(['gpt-5.3-codex']));
    expect(ep.turns.filter((t) => t.role === 'plan')).toHaveLength(15);
    expect(ep.turns.filter((t) => t.role === 'build')).toHaveLength(22);
    // input 99,751 + cache read 1,635,456; output already holds reasoning (total = input + output + cache read).
    expect(tokenSums(ep)).toEqual({ in: 99_751 + 1_635_456, out: 14_179, cached: 1_635_456, reasoning: 5_185 });
    const calls = ep.turns.flatMap((t) => t.tool_calls ?? []);
    expect(calls).toHaveLength(55);
    expect(calls.every((c) => c.id && c.input && c.result !== null && c.is_error === false)).toBe(true);
    expect(ep.task).toMatchObject({ type: 'opencode', category: 'dark-factory', text: 'I want to change our termonogly we oriignally defined in @README.md. ' });
    expect(ep.started_at).toBe(new Date(1771213644929).toISOString());
    expect(ep.parent ?? null).toBeNull();
  });

  it('a logged cost of 0 with tokens is left unknown with a note; the log\'s own total keeps the 0', async () => {
    const { episodes, warnings } = await readEpisodes(openCodeImporter, exportFile);
    const ep = episodes[0];
    expect(ep?.turns.every((t) => t.cost_usd == null && t.notes?.some((n) => n.startsWith('OpenCode logged cost 0')))).toBe(true);
    expect(ep?.log_totals).toEqual({ source: 'opencode message totals', cost_usd: 0 });
    expect(warnings.join('\n')).toMatch(/37 model call\(s\) logged a cost of 0/);
  });

  it('keeps every message that reached the model: prompts after the first, injected file reads, the aborted response', async () => {
    const ep = await readOne(exportFile);
    const inputs = ep.turns.flatMap((t) => t.inputs ?? []);
    // Ten user messages; the first is the task.
    expect(inputs.filter((m) => m.role === 'user')).toHaveLength(9);
    const first = ep.turns[0];
    expect(first?.inputs?.map((m) => m.role)).toEqual(['system', 'system', 'user', ...Array<string>(8).fill('system')]);
    expect(first?.inputs?.[2]?.text).toMatch(/^I want to replace world, env, actor/);
    expect(first?.notes?.[0]).toBe('a response ended before its first step (MessageAbortedError: The operation was aborted.)');
    const last = ep.turns.at(-1);
    expect(last?.action).toMatchObject({ type: 'message' });
    expect(last?.action.text).toMatch(/^Done - I handed this off to `@gitter`/);
    expect(ep.final_messages ?? null).toBeNull();
  });

  it('says what each call did: reasoning, summaries of tool calls, their results', async () => {
    const ep = await readOne(exportFile);
    const t0 = ep.turns[0];
    expect(t0?.action.type).toBe('tool');
    expect(t0?.reasoning).toBeTruthy();
    const task = ep.turns.find((t) => t.tool_calls?.some((c) => c.name === 'task'));
    expect(task?.action).toMatchObject({ type: 'tool', tool: 'subagent', text: 'task (gitter): Commit terminology refactor' });
    expect(task?.observation).toMatch(/^task_id: ses_39b5fba2effeZTqL4zPbbsOeop/);
    expect(ep.turns.some((t) => t.action.tool === 'edit' && /^Edit \/Users\/alex/.test(t.action.text ?? ''))).toBe(true);
  });
});

describe('OpenCode importer: detection', () => {
  it('claims the export and no other real file; the registry sends it here, not to mini-swe-agent', () => {
    // The fixture's export and its storage sessions, and the shared data's export (when this workspace has it).
    const claimed = claimedFiles(openCodeImporter, [samples, SHARED]).map((f) => basename(f));
    expect([...new Set(claimed)].sort()).toEqual([`${CHILD}.json`, `${PARENT}.json`, basename(exportFile)].sort());
    expect(claimed.filter((n) => n !== basename(exportFile))).toHaveLength(2);
  });

  it('imports the export through the pipeline (before: refused with a mini-swe-agent schema error)', async () => {
    const db = openDatabase(join(tempDir(), 'db.sqlite'));
    const report = await importPaths(db, [exportFile]);
    expect(report.files.map((f) => [f.status, f.format, f.turns, f.reason ?? null])).toEqual([['imported', 'opencode', 37, null]]);
    db.close();
  });
});

describe('OpenCode importer: token conventions and logged costs', () => {
  it('a step whose total counts reasoning apart from output (AI SDK 6) adds it back to out, and a positive cost is logged', async () => {
    // Usage and cost as a real OpenCode step-finish logged them for deepseek (a third-party log found with the search
    // tools): input 127 + output 96 + reasoning 103 + cache read 7,680 = total 8,006.
    const file = editedExport((doc) => {
      const finish = doc.messages[3]?.parts.find((p) => p.type === 'step-finish');
      if (!finish) throw new Error('no step-finish');
      finish['tokens'] = { total: 8006, input: 127, output: 96, reasoning: 103, cache: { read: 7680, write: 0 } };
      finish['cost'] = 0.000256215;
    });
    const t0 = (await readOne(file)).turns[0];
    expect(t0?.tokens).toEqual({ in: 7807, out: 199, cached: 7680, cache_write: 0, reasoning: 103 });
    expect(t0?.cost_usd).toBe(0.000256215);
    expect(t0?.notes ?? []).not.toContainEqual(expect.stringMatching(/cost 0/));
  });

  it('cache writes count as input (Anthropic through OpenCode: input excludes both cache kinds)', async () => {
    const file = editedExport((doc) => {
      const finish = doc.messages[3]?.parts.find((p) => p.type === 'step-finish');
      if (finish) finish['tokens'] = { total: 80499, input: 2, output: 328, reasoning: 0, cache: { read: 0, write: 80169 } };
    });
    expect((await readOne(file)).turns[0]?.tokens).toMatchObject({ in: 80171, out: 328, cache_write: 80169 });
  });
});

describe('OpenCode importer: the storage folder', () => {
  it('reads the same session from its message and part files as from the export', async () => {
    const sessionFile = asStorage(sample(), join(tempDir(), 'storage'));
    expect(openCodeImporter.detect(readFileSync(sessionFile, 'utf8'), basename(sessionFile))).toBe(true);
    expect(await readOne(sessionFile)).toEqual(await readOne(exportFile));
  });

  it('links a subagent session to the turn whose task call launched it', async () => {
    const child = await readOne(join(storage, 'session', PROJECT, `${CHILD}.json`));
    expect(child.kind).toBe('subagent');
    expect(child.parent).toEqual({ episode_id: PARENT, t: 0, tool_call_id: 'call_H7rQFx9aKX1XEAgr4wWRdIl0' });
    expect(child.turns.map((t) => t.role)).toEqual(['gitter', 'gitter']);
    const [calls] = child.turns.map((t) => t.tool_calls);
    expect(calls?.map((c) => c.is_error)).toEqual([false, true]);
    expect(child.turns[0]?.errors).toEqual([{ type: 'tool_error', severity: 'medium' }]);
    expect(child.task.text).toMatch(/^Handle commit support/);
  });

  it('a folder import reads both sessions and lists message and part files as sidecars', async () => {
    const db = openDatabase(join(tempDir(), 'db.sqlite'));
    const report = await importPaths(db, [storage]);
    expect(report.files.map((f) => [basename(f.path), f.status, f.turns])).toEqual([
      [`${CHILD}.json`, 'imported', 2],
      [`${PARENT}.json`, 'imported', 2],
    ]);
    // 6 message files and 20 part files.
    expect(report.ignored).toHaveLength(26);
    expect(report.ignored.every((i) => i.reason.startsWith('sidecar of opencode logs'))).toBe(true);
    db.close();
  });

  it('a session file without its storage folder is refused, saying what is missing', async () => {
    const dir = tempDir();
    const lone = join(dir, `${PARENT}.json`);
    cpSync(join(storage, 'session', PROJECT, `${PARENT}.json`), lone);
    expect((await rejectionOf(openCodeImporter, lone)).message).toMatch(/:1: an OpenCode session file without its storage folder/);
  });

  it('a part file with a bad type is refused at that file', async () => {
    const root = join(tempDir(), 'storage');
    cpSync(storage, root, { recursive: true });
    const part = join(root, 'part', 'msg_c64a0a12b002m9YnPspqB3sMZ3', 'prt_c64a0ac09001M0m0YfllSLrKr5.json');
    writeFileSync(part, readFileSync(part, 'utf8').replace('"type": "text"', '"type": 42'));
    const err = await rejectionOf(openCodeImporter, join(root, 'session', PROJECT, `${PARENT}.json`));
    expect(err.file).toBe(part);
    expect(err.message).toMatch(/prt_c64a0ac09001M0m0YfllSLrKr5\.json:2: type: /);
  });
});

describe('OpenCode importer: broken and unusual exports', () => {
  it('a truncated export is refused at its last line', async () => {
    const text = readFileSync(exportFile, 'utf8');
    const file = join(tempDir(), 'cut.json');
    writeFileSync(file, text.slice(0, Math.floor(text.length / 2)));
    const err = await rejectionOf(openCodeImporter, file);
    expect(err.reason).toMatch(/^invalid JSON/);
    expect(err.line).toBeGreaterThan(1000);
  });

  it('a part with a bad type is refused at its line', async () => {
    const file = editedExport((doc) => {
      const part = doc.messages[3]?.parts[0];
      if (part) part.type = 42;
    });
    const err = await rejectionOf(openCodeImporter, file);
    expect(err.message).toMatch(/:\d+: messages\[3\]\.parts\[0\]\.type: /);
    expect(readFileSync(file, 'utf8').split('\n')[err.line - 1]).toMatch(/"type": 42/);
  });

  it('step usage of the wrong type is refused at its line', async () => {
    const file = editedExport((doc) => {
      const finish = doc.messages[4]?.parts.find((p) => p.type === 'step-finish');
      if (finish) (finish['tokens'] as Record<string, unknown>)['input'] = '10641';
    });
    expect((await rejectionOf(openCodeImporter, file)).message).toMatch(/messages\[4\]\.parts\[\d+\]\.tokens\.input: /);
  });

  it('a step cut off before its step-finish is still a model call, with usage unknown', async () => {
    const file = editedExport((doc) => {
      const parts = doc.messages[47]?.parts;
      if (parts) doc.messages[47] = { ...doc.messages[47], parts: parts.filter((p) => p.type !== 'step-finish') } as Message;
    });
    const last = (await readOne(file)).turns.at(-1);
    expect(last?.tokens ?? null).toBeNull();
    expect(last?.cost_usd ?? null).toBeNull();
    expect(last?.notes).toContain('step not finished (no step-finish part): usage and cost not logged');
  });

  it('a compaction: its call is a turn of the compaction agent, its summary the next turn\'s input', async () => {
    // Built by hand in the shapes OpenCode's message-v2 schema gives a compaction (a user message with a
    // `compaction` part, then an assistant message with `summary: true` from the compaction agent), with the
    // export's own ids and fields.
    const file = editedExport((doc) => {
      const user = doc.messages[36] as Message;
      const reply = doc.messages[37] as Message;
      const request: Message = {
        info: { ...user.info, id: 'msg_c649f0000001CompactionAsk01' },
        parts: [{ type: 'compaction', auto: true, id: 'prt_c649f0000002CompactionAsk01', sessionID: PARENT, messageID: 'msg_c649f0000001CompactionAsk01' }],
      };
      const summary: Message = {
        info: { ...reply.info, id: 'msg_c649f0000003CompactionSum01', agent: 'compaction', mode: 'compaction', summary: true, finish: 'stop' },
        parts: [
          { type: 'step-start', id: 'prt_c649f0000004CompactionSum01' },
          { type: 'text', text: 'We renamed world/env to product/variant in the docs.', id: 'prt_c649f0000005CompactionSum01' },
          { type: 'step-finish', reason: 'stop', cost: 0.01, tokens: { total: 5100, input: 5000, output: 100, reasoning: 0, cache: { read: 0, write: 0 } }, id: 'prt_c649f0000006CompactionSum01' },
        ],
      };
      doc.messages.splice(36, 0, request, summary);
    });
    const ep = await readOne(file);
    expect(ep.turns).toHaveLength(38);
    const i = ep.turns.findIndex((t) => t.role === 'compaction');
    expect(ep.turns[i]).toMatchObject({ cost_usd: 0.01, tokens: { in: 5000, out: 100 }, inputs: [{ role: 'system', text: '[compaction requested automatically]' }] });
    expect(ep.turns[i + 1]?.inputs?.map((m) => [m.role, m.text])).toEqual([
      ['summary', 'We renamed world/env to product/variant in the docs.'],
      ['user', '2nd pass please'],
    ]);
  });

  it('a part of a type this importer does not know is left out with a warning, not refused', async () => {
    const file = editedExport((doc) => {
      doc.messages[3]?.parts.push({ type: 'hologram', id: 'prt_x' });
    });
    const { episodes, warnings } = await readEpisodes(openCodeImporter, file);
    expect(episodes[0]?.turns).toHaveLength(37);
    expect(warnings).toContainEqual(expect.stringMatching(/1 part\(s\) of a type this importer does not know \("hologram"\)/));
  });
});
