import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { strToU8, unzipSync, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import type { CanonicalEpisode } from '../../shared/canonical.ts';
import { openDatabase } from '../db/database.ts';
import { useTempDir } from '../testing/tmp.ts';
import { DEFAULT_ARCHIVE_LIMITS } from './evalArchive.ts';
import { inspectImporter, inspectImporterWith } from './inspect.ts';
import { inspectTokens, scoreValue } from './inspectEpisode.ts';
import { detectImporter, importPaths } from './pipeline.ts';
import { head } from './testing.ts';
import { ImportError, type Importer } from './types.ts';

const fixtures = fileURLToPath(new URL('../../fixtures/', import.meta.url));
const browser = join(fixtures, 'samples/inspect/2025-05-12T20-27-36-04-00_browser.json');
const streaming = join(fixtures, 'samples/inspect/log_streaming.eval');
const mmlu = join(fixtures, 'samples/inspect/mmlu-summary-choices.eval');
const tempDir = useTempDir();

type Json = Record<string, unknown>;

async function read(file: string, importer: Importer = inspectImporter, runName?: string) {
  const warnings: string[] = [];
  const episodes: CanonicalEpisode[] = [];
  for await (const ep of importer.read(file, { root: file, runName, warn: (m) => warnings.push(m) })) episodes.push(ep);
  return { episodes, warnings };
}

async function rejection(file: string, importer: Importer = inspectImporter): Promise<ImportError> {
  try {
    await read(file, importer);
  } catch (err) {
    if (err instanceof ImportError) return err;
    throw err;
  }
  throw new Error(`${file} was not rejected`);
}

const browserLog = (): Json => JSON.parse(readFileSync(browser, 'utf8')) as Json;
const firstSample = (log: Json): Json => (log.samples as Json[])[0] as Json;

function writeJson(name: string, value: unknown): string {
  const file = join(tempDir(), name);
  writeFileSync(file, JSON.stringify(value, null, 2));
  return file;
}

/** An `.eval` archive from a header and samples (member name → JSON value or raw text). */
function writeEval(header: unknown, samples: Record<string, unknown>, name = 'log.eval'): string {
  const members: Record<string, Uint8Array> = { 'header.json': strToU8(JSON.stringify(header)) };
  for (const [n, v] of Object.entries(samples)) members[`samples/${n}`] = strToU8(typeof v === 'string' ? v : JSON.stringify(v, null, 2));
  const file = join(tempDir(), name);
  writeFileSync(file, zipSync(members));
  return file;
}

function streamingMembers(): { header: Json; samples: Record<string, Json> } {
  const files = unzipSync(readFileSync(streaming));
  const parse = (name: string): Json => JSON.parse(new TextDecoder().decode(files[name])) as Json;
  const samples: Record<string, Json> = {};
  for (const name of Object.keys(files)) if (name.startsWith('samples/')) samples[name.slice('samples/'.length)] = parse(name);
  return { header: parse('header.json'), samples };
}

describe('Inspect importer: real logs', () => {
  it('JSON log with spans: one turn per model call, tokens, latency, tool results, attachments resolved', async () => {
    const { episodes, warnings } = await read(browser);
    expect(episodes).toHaveLength(1);
    const ep = episodes[0] as CanonicalEpisode;
    expect(ep.run).toBe('browser (openai/gpt-4o-mini)');
    expect(ep.episode_id).toBe('1');
    expect(ep.task).toMatchObject({ id: '1', type: 'browser' });
    expect(ep.task.text).toMatch(/^Use the web browser tool/);
    // The outcome explained as the sample logs it (read here from the file itself): its empty target, the model's
    // final output, and the `includes` scorer with its answer and explanation.
    const logged = firstSample(browserLog()) as { target: string; output: { choices: { message: { content: string } }[] }; scores: { includes: Json } };
    expect(ep.outcome).toEqual({
      score: 1, score_range: [0, 1], success: true, exit: null,
      target: logged.target, choices: null, answer: logged.output.choices[0]?.message.content,
      scorers: [{ name: 'includes', value: 'C', answer: logged.scores.includes.answer, explanation: logged.scores.includes.explanation, metadata: null }],
    });
    expect(ep.outcome.target).toBe('');
    expect(ep.outcome.answer).toMatch(/^The AI Security Institute \(AISI\) is the premier governmental organization/);
    expect(ep.turns).toHaveLength(5);
    expect(new Set(ep.turns.map((t) => t.model))).toEqual(new Set(['openai/gpt-4o-mini']));
    expect(ep.turns.map((t) => t.action.tool ?? null)).toEqual([
      'web_browser_go', 'web_browser_click', 'web_browser_click', 'web_browser_click', null,
    ]);
    expect(ep.turns[0]?.action.text).toBe('web_browser_go({"url":"https://www.aisi.gov.uk/"})');
    expect(ep.turns[0]?.observation).toMatch(/^\[132\] link "We are now the AI Security Institute"/);
    expect(ep.turns[4]?.action.type).toBe('message');
    // The tokens add up to the log's own stats.model_usage.
    const sum = (k: 'in' | 'out' | 'cached'): number => ep.turns.reduce((a, t) => a + (t.tokens?.[k] ?? 0), 0);
    expect([sum('in'), sum('out'), sum('cached')]).toEqual([15235, 281, 9088]);
    expect(ep.turns[0]?.latency_ms).toBe(1101);
    expect(ep.turns.every((t) => t.cost_usd == null)).toBe(true);
    // The final answer is stored as an attachment.
    const sample = firstSample(browserLog());
    const attachments = sample.attachments as Record<string, string>;
    expect(ep.turns[4]?.action.text).toBe(attachments['707c70d5b9111db606fd541158567d76']);
    expect(JSON.stringify(ep)).not.toContain('attachment://');
    expect(ep.grader_calls ?? null).toBeNull();
    expect(warnings).toEqual([]);
  });

  it('.eval with step events and 2 epochs: one episode per sample × epoch', async () => {
    const { episodes } = await read(streaming);
    expect(episodes.map((e) => e.episode_id)).toEqual(['1_epoch1', '1_epoch2', '2_epoch1', '2_epoch2']);
    expect(episodes.map((e) => e.outcome.score)).toEqual([0, 1, 1, 1]);
    expect(episodes.map((e) => e.outcome.success)).toEqual([false, true, true, true]);
    expect(new Set(episodes.map((e) => e.run))).toEqual(new Set(['popularity (azureai/Meta-Llama-3-1-405B-Instruct-jqf)']));
    for (const ep of episodes) {
      expect(ep.turns).toHaveLength(1);
      expect(ep.turns[0]?.model).toBe('azureai/Meta-Llama-3-1-405B-Instruct-jqf');
      expect(ep.turns[0]?.action.type).toBe('message');
      expect(ep.turns[0]?.latency_ms ?? null).toBeNull();
    }
    expect(episodes[0]?.turns[0]?.tokens).toEqual({ in: 66, out: 1, cached: null });
    expect(episodes[1]?.turns[0]?.action.text).toBe('Yes.');
    // samples/<id>_epoch_<n>.json by hand: the targets keep the log's leading space; sample 1 epoch 1 answered "No" to
    // " Yes" and its `match` scorer logged no explanation.
    expect(episodes.map((e) => [e.outcome.target, e.outcome.answer, e.outcome.scorers])).toEqual([
      [' Yes', 'No', [{ name: 'match', value: 'I', answer: 'No', explanation: null, metadata: null }]],
      [' Yes', 'Yes.', [{ name: 'match', value: 'C', answer: 'Yes.', explanation: 'Yes.', metadata: null }]],
      [' No', 'No.', [{ name: 'match', value: 'C', answer: 'No.', explanation: 'No.', metadata: null }]],
      [' No', 'No', [{ name: 'match', value: 'C', answer: 'No', explanation: 'No', metadata: null }]],
    ]);
  });

  it('.eval with spans (newer writer): one MMLU sample scored incorrect', async () => {
    const { episodes } = await read(mmlu, inspectImporter, 'renamed');
    expect(episodes).toHaveLength(1);
    const ep = episodes[0] as CanonicalEpisode;
    expect(ep.run).toBe('renamed');
    expect(ep.task.type).toBe('inspect_evals/mmlu_0_shot');
    expect(ep.outcome).toMatchObject({ score: 0, success: false });
    // A multiple-choice sample: target A (the first choice), the model answered C, and `choice` says why it is wrong.
    expect(ep.outcome).toMatchObject({
      target: 'A', choices: ['6.0 e', '6.8 eV', '12.2 eV', '13.6 eV'], answer: 'ANSWER: C',
      scorers: [{ name: 'choice', value: 'I', answer: 'C', explanation: 'ANSWER: C', metadata: null }],
    });
    expect(ep.turns.map((t) => [t.model, t.action.text, t.tokens?.in, t.tokens?.out])).toEqual([['openai/gpt-4o', 'ANSWER: C', 153, 3]]);
  });
});

describe('Inspect importer: the sample’s own totals and every message', () => {
  it('each sample’s model_usage is its log total: all six real samples reconcile with their turns', async () => {
    const { episodes } = await read(browser);
    expect(episodes[0]?.log_totals).toEqual({
      source: "the sample's model_usage",
      tokens: { in: 15235, out: 281, cached: 9088, cache_write: null, reasoning: 0 },
      cost_usd: null,
    });
    const all = [...episodes, ...(await read(streaming)).episodes, ...(await read(mmlu)).episodes];
    expect(all).toHaveLength(6);
    for (const ep of all) {
      const sum = (k: 'in' | 'out') => ep.turns.reduce((a, t) => a + (t.tokens?.[k] ?? 0), 0);
      expect([ep.log_totals?.tokens?.in, ep.log_totals?.tokens?.out], ep.episode_id).toEqual([sum('in'), sum('out')]);
    }
    expect((await read(streaming)).episodes.map((e) => e.log_totals?.tokens?.in)).toEqual([66, 66, 60, 60]);
  });

  it('a model named __proto__ in model_usage counts like any other (zod\'s own record left it out)', async () => {
    const log = browserLog();
    const sample = firstSample(log);
    const usage = (sample.model_usage as Json)['openai/gpt-4o-mini'];
    // An own key, as JSON.parse makes it from a log: assignment would set the prototype instead.
    sample.model_usage = JSON.parse(`{"__proto__": ${JSON.stringify(usage)}}`) as Json;
    const { episodes } = await read(writeJson('proto-model.json', log));
    expect(episodes[0]?.log_totals?.tokens).toEqual({ in: 15235, out: 281, cached: 9088, cache_write: null, reasoning: 0 });
  });

  it('a scorer named __proto__ still gives the outcome', async () => {
    const log = browserLog();
    const sample = firstSample(log);
    const score = (sample.scores as Json).includes;
    sample.scores = JSON.parse(`{"__proto__": ${JSON.stringify(score)}}`) as Json;
    const { episodes } = await read(writeJson('proto-scorer.json', log));
    expect(episodes[0]?.outcome).toMatchObject({ score: 1, score_range: [0, 1], success: true, exit: null });
    expect(episodes[0]?.outcome.scorers?.map((x) => [x.name, x.value])).toEqual([['__proto__', 'C']]);
  });

  it('system prompt and task from the messages; the real samples have no other message between replies', async () => {
    // Counted in the files: browser = user, (assistant, tool) × 4, assistant; log_streaming = system, user,
    // assistant (each of 4); mmlu = user, assistant.
    const [web] = (await read(browser)).episodes;
    expect(web?.system_prompt).toBeNull();
    expect(web?.turns.every((t) => t.inputs == null)).toBe(true);
    expect(web?.final_messages).toBeNull();
    const stream = (await read(streaming)).episodes;
    expect(stream.every((e) => e.system_prompt?.includes('only respond with exactly "Yes" or "No"'))).toBe(true);
    expect(stream.every((e) => e.turns[0]?.inputs == null && e.final_messages == null)).toBe(true);
  });

  it('a user message a solver adds between calls is the next turn’s input; one after the last reply a final message', async () => {
    // The shape Inspect's basic_agent writes when a reply makes no tool call (its continue message), in the real log.
    const log = browserLog();
    const messages = firstSample(log).messages as Json[];
    messages.splice(3, 0, { role: 'user', content: 'Please proceed to the next step using your best judgement.', source: 'generate' });
    messages.push({ role: 'user', content: 'Are you done?', source: 'input' });
    const { episodes, warnings } = await read(writeJson('continue.json', log));
    expect(episodes[0]?.turns[1]?.inputs).toEqual([{ role: 'user', text: 'Please proceed to the next step using your best judgement.' }]);
    expect(episodes[0]?.turns.filter((t) => t.inputs != null)).toHaveLength(1);
    expect(episodes[0]?.final_messages).toEqual([{ role: 'user', text: 'Are you done?' }]);
    expect(warnings.filter((w) => w.includes('kept as final messages'))).toEqual([]);
  });
});

describe('Inspect importer: grader calls and fallbacks', () => {
  const graderModel = (spanId: string | null) => ({
    event: 'model',
    span_id: spanId,
    model: 'openai/gpt-4o-mini',
    input: [],
    output: { choices: [{ message: { role: 'assistant', content: 'GRADE: C' } }], usage: { input_tokens: 500, output_tokens: 10, total_tokens: 510 } },
  });

  it('keeps model calls inside a scorer span out of the turns (new writers)', async () => {
    const log = browserLog();
    const events = firstSample(log).events as Json[];
    events.push(
      { event: 'span_begin', id: 'scorers', parent_id: null, type: 'scorers', name: 'scorers' },
      { event: 'span_begin', id: 'mgf', parent_id: 'scorers', type: 'scorer', name: 'model_graded_fact' },
      graderModel('mgf'),
      { event: 'score', span_id: 'mgf', score: { value: 'C' } },
      { event: 'span_end', id: 'mgf' },
      { event: 'span_end', id: 'scorers' },
    );
    const { episodes, warnings } = await read(writeJson('graded.json', log));
    const ep = episodes[0] as CanonicalEpisode;
    expect(ep.turns).toHaveLength(5);
    expect(ep.grader_calls).toEqual([{ model: 'openai/gpt-4o-mini', tokens: { in: 500, out: 10, cached: null }, cost_usd: null, text: 'GRADE: C' }]);
    expect(warnings).toContain('1 grader calls kept out of the turns (model-graded scoring)');
  });

  it('recognises grader calls from the span tree alone, from old step events, and after a final score', async () => {
    const { header, samples } = streamingMembers();
    const sample = samples['1_epoch_1.json'] as Json;
    const events = sample.events as Json[];
    const scorerBegin = events.findIndex((e) => e.event === 'step' && e.type === 'scorer' && e.action === 'begin');
    events.splice(scorerBegin + 1, 0, graderModel(null));
    events.push(graderModel(null)); // after the `score` event: a second scorer's call
    const { episodes, warnings } = await read(writeEval(header, { '1_epoch_1.json': sample }));
    expect(episodes[0]?.turns).toHaveLength(1);
    expect(episodes[0]?.grader_calls).toHaveLength(2);
    expect(warnings).toContain('2 grader calls kept out of the turns (model-graded scoring)');

    // A span whose begin/end ordering is lost still counts through its parent chain.
    const log = browserLog();
    (firstSample(log).events as Json[]).push(
      { event: 'span_begin', id: 's', parent_id: null, type: 'scorers' },
      { event: 'span_begin', id: 'c', parent_id: 's', type: 'scorer' },
      { event: 'span_end', id: 'c' },
      { event: 'span_end', id: 's' },
      graderModel('c'),
    );
    expect((await read(writeJson('tree.json', log))).episodes[0]?.grader_calls).toHaveLength(1);
  });

  it('falls back to assistant messages when a sample has no model events', async () => {
    const log = browserLog();
    firstSample(log).events = [];
    const { episodes, warnings } = await read(writeJson('old.json', log));
    const ep = episodes[0] as CanonicalEpisode;
    expect(ep.turns).toHaveLength(5);
    expect(new Set(ep.turns.map((t) => t.model))).toEqual(new Set(['gpt-4o-mini-2024-07-18']));
    expect(ep.turns[1]?.action.tool).toBe('web_browser_click');
    expect(ep.turns[0]?.observation).toMatch(/^\[132\] link/);
    expect(ep.turns.every((t) => t.tokens == null)).toBe(true);
    expect(warnings.join()).toMatch(/without token counts/);
  });

  it('names epochs only when the log has several, and rejects duplicate samples', async () => {
    const { header, samples } = streamingMembers();
    const one = { ...header, eval: { ...(header.eval as Json), config: { epochs: 1 } } };
    const single = await read(writeEval(one, { '1_epoch_1.json': samples['1_epoch_1.json'] }));
    expect(single.episodes.map((e) => e.episode_id)).toEqual(['1']);
    const err = await rejection(writeEval(one, { '1_epoch_1.json': samples['1_epoch_1.json'], '1_epoch_1b.json': samples['1_epoch_1.json'] }));
    expect(err.message).toMatch(/samples\/1_epoch_1b\.json:1: duplicate sample "1"/);
  });
});

describe('Inspect importer: values', () => {
  it('maps scores the way Inspect does', () => {
    expect(['C', 'I', 'P', 'N', 'yes', 'false', 0.25, '0.5', true].map((v) => scoreValue(v))).toEqual([1, 0, 0.5, 0, 1, 0, 0.25, 0.5, 1]);
    expect(scoreValue({ a: 1 })).toBeNull();
    expect(scoreValue('constructor')).toBeNull();
  });

  it('counts cached input inside `in` for both usage conventions', () => {
    // OpenAI: input_tokens already includes the cache reads.
    expect(inspectTokens({ input_tokens: 1568, output_tokens: 17, total_tokens: 1585, input_tokens_cache_read: 1024 })).toEqual({ in: 1568, out: 17, cached: 1024 });
    // Anthropic: input_tokens excludes them, and total_tokens shows it.
    expect(inspectTokens({ input_tokens: 10, output_tokens: 5, total_tokens: 1115, input_tokens_cache_read: 1000, input_tokens_cache_write: 100 })).toEqual({ in: 1110, out: 5, cached: 1000 });
  });

  it('keeps an attachment reference it cannot resolve, with a warning', async () => {
    const log = browserLog();
    firstSample(log).attachments = {};
    const { episodes, warnings } = await read(writeJson('lost.json', log));
    expect(episodes[0]?.turns[4]?.action.text).toBe('attachment://707c70d5b9111db606fd541158567d76');
    expect(warnings.join()).toMatch(/attachment:\/\/ references not found/);
  });

  it('a scorer\'s metadata, a list target and attachments are kept as logged; values JSON cannot hold become null', async () => {
    const log = browserLog();
    const sample = firstSample(log);
    const attachments = sample.attachments as Record<string, string>;
    const [hash, text] = Object.entries(attachments)[0] as [string, string];
    sample.target = ['AISI', `attachment://${hash}`];
    sample.scores = {
      model_graded_fact: { value: 'C', explanation: `attachment://${hash}`, metadata: { grading: [{ role: 'user', content: 'Grade it.' }], confidence: 0.9 } },
      ' ': { value: { accuracy: 1, note: null }, answer: 42 },
    };
    const raw = JSON.stringify(log, null, 2).replace('"confidence": 0.9', '"confidence": 1e999');
    const file = join(tempDir(), 'metadata.json');
    writeFileSync(file, raw);
    const ep = (await read(file)).episodes[0] as CanonicalEpisode;
    expect(ep.outcome.target).toEqual(['AISI', text]);
    expect(ep.outcome.scorers).toEqual([
      { name: 'model_graded_fact', value: 'C', answer: null, explanation: text, metadata: { grading: [{ role: 'user', content: 'Grade it.' }], confidence: null } },
      { name: '(unnamed scorer)', value: { accuracy: 1, note: null }, answer: '42', explanation: null, metadata: null },
    ]);
  });

  it('takes a logged cost and keeps non-unit scores unnormalised', async () => {
    const log = browserLog();
    const sample = firstSample(log);
    const model = (sample.events as Json[]).find((e) => e.event === 'model') as { output: { usage: Json } };
    model.output.usage.total_cost = 0.5;
    sample.scores = { judge: { value: 7 } };
    const ep = (await read(writeJson('cost.json', log))).episodes[0] as CanonicalEpisode;
    expect(ep.turns[0]?.cost_usd).toBe(0.5);
    expect(ep.outcome).toMatchObject({ score: 7, score_range: null, success: null });
  });
});

describe('Inspect importer: detection', () => {
  it('claims .json and .eval logs by content', () => {
    for (const f of [browser, streaming, mmlu]) {
      expect(inspectImporter.detect(head(f), basename(f))).toBe(true);
      expect(detectImporter(head(f), basename(f))?.format).toBe('inspect');
    }
  });

  it('does not claim other ZIPs, canonical JSONL, mini-swe-agent or SWE-agent trajectories', () => {
    expect(inspectImporter.detect(head(streaming), 'archive.zip')).toBe(false);
    expect(inspectImporter.detect('{"schema":"routelens/v1","run":"r","episode_id":"e","turns":[]}\n', 'x.jsonl')).toBe(false);
    expect(inspectImporter.detect('{"info": {}, "messages": [], "trajectory_format": "mini-swe-agent-1"}', 'x.traj.json')).toBe(false);
    const swe = join(fixtures, 'samples/swe-agent/gpt4__swe-bench-dev-easy_first_only__default__t-0.00__p-0.95__c-3.00__install-1/pydicom__pydicom-1458.traj');
    expect(inspectImporter.detect(head(swe), basename(swe))).toBe(false);
    expect(inspectImporter.detect('{"eval": {"task": "x"}}', 'x.json')).toBe(false);
  });
});

describe('Inspect importer: broken and hostile files', () => {
  it('rejects samples that are not an array, at the line of `samples`', async () => {
    const err = await rejection(join(fixtures, 'broken/inspect-samples-not-array.json'));
    expect(err.line).toBe(8);
    expect(err.reason).toMatch(/^samples: .*expected array/);
  });

  it('names the path and line of a wrong type inside a sample', async () => {
    const log = browserLog();
    const model = (firstSample(log).events as Json[]).find((e) => e.event === 'model') as { output: { usage: Json } };
    model.output.usage.input_tokens = 'many';
    const file = writeJson('bad.json', log);
    const err = await rejection(file);
    expect(err.reason).toMatch(/^samples\[0\]\.events\[\d+\]\.output\.usage\.input_tokens: /);
    expect(readFileSync(file, 'utf8').split('\n')[err.line - 1]).toMatch(/"input_tokens": "many"/);
  });

  it('names the member and its line for bad JSON inside an .eval', async () => {
    const { header } = streamingMembers();
    const err = await rejection(writeEval(header, { '1_epoch_1.json': '{\n  "id": 1,\n  "epoch": 1,\n  oops\n}' }));
    expect(err.line).toBe(1);
    expect(err.reason).toMatch(/^samples\/1_epoch_1\.json:4: invalid JSON/);
  });

  it('rejects a corrupt member, naming it', async () => {
    const err = await rejection(join(fixtures, 'broken/inspect-corrupt-member.eval'));
    expect(err.reason).toMatch(/^samples\/1_epoch_1\.json: corrupt archive member/);
  });

  it('rejects a member that declares more than the limit before inflating anything', async () => {
    const err = await rejection(join(fixtures, 'broken/inspect-zip-bomb.eval'));
    expect(err.reason).toMatch(/samples\/1_epoch_1\.json: declares 3221225472 bytes uncompressed.*zip bomb/);
  });

  it('rejects real zip bombs by member size and by total size', async () => {
    const small = inspectImporterWith({ ...DEFAULT_ARCHIVE_LIMITS, maxEntryBytes: 1024 * 1024, maxTotalBytes: 3 * 1024 * 1024 });
    const { header } = streamingMembers();
    const zeros = '0'.repeat(8 * 1024 * 1024); // 8 MiB inflating from ~8 KiB
    const bomb = writeEval(header, { '1_epoch_1.json': zeros });
    expect(readFileSync(bomb).length).toBeLessThan(64 * 1024);
    expect((await rejection(bomb, small)).reason).toMatch(/declares 8388608 bytes.*per member — a zip bomb or not a log$/);

    const many: Record<string, string> = {};
    for (let i = 1; i <= 4; i++) many[`${i}_epoch_1.json`] = ' '.repeat(1024 * 1024);
    expect((await rejection(writeEval(header, many), small)).reason).toMatch(
      /^members declare over \d+ bytes uncompressed in all, past the budget of 3145728 bytes \(the cap for any archive\) — a zip bomb/,
    );
  });

  it('budgets inflated bytes by the archive size: honest sizes over the ratio are refused before inflating', async () => {
    const ratio = inspectImporterWith({ ...DEFAULT_ARCHIVE_LIMITS, maxInflateRatio: 50, minInflateBudget: 0 });
    const { header, samples } = streamingMembers();
    // Real samples (about 4× compression) import under a 50× budget…
    expect((await read(writeEval(header, samples), ratio)).episodes).toHaveLength(4);
    // …a sample padded with 2 MiB of one repeated string (about 1000×) does not, though its sizes are honest.
    const padded = { ...(samples['1_epoch_1.json'] as Json), metadata: { pad: 'x'.repeat(2 * 1024 * 1024) } };
    const bomb = writeEval(header, { '1_epoch_1.json': padded });
    const size = readFileSync(bomb).length;
    const err = await rejection(bomb, ratio);
    expect(err.line).toBe(1);
    expect(err.reason).toBe(
      `members declare over ${err.reason.match(/over (\d+)/)?.[1]} bytes uncompressed in all, past the budget of ${50 * size} bytes ` +
        `(50× the archive's ${size} bytes) — a zip bomb or not a log`,
    );
  });

  it('stops inflating a member as soon as it passes its declared size (memory and time stay bounded)', async () => {
    const { header, samples } = streamingMembers();
    const file = writeEval(header, { '1_epoch_1.json': samples['1_epoch_1.json'] });
    const bytes = readFileSync(file);
    // Rewrite the sample's declared size in the central directory to 100 bytes.
    for (let pos = bytes.indexOf('PK\u0001\u0002'); pos !== -1; pos = bytes.indexOf('PK\u0001\u0002', pos + 4)) {
      const nameLength = bytes.readUInt16LE(pos + 28);
      if (bytes.subarray(pos + 46, pos + 46 + nameLength).toString() === 'samples/1_epoch_1.json') bytes.writeUInt32LE(100, pos + 24);
    }
    writeFileSync(file, bytes);
    expect((await rejection(file)).reason).toMatch(/^samples\/1_epoch_1\.json: inflates to more than the 100 bytes it declares \(zip bomb\?\)/);
  });

  it('rejects files that are not ZIP archives or lack a header', async () => {
    const dir = tempDir();
    const notZip = join(dir, 'x.eval');
    writeFileSync(notZip, Buffer.concat([Buffer.from('PK\u0003\u0004'), Buffer.alloc(100)]));
    expect((await rejection(notZip)).reason).toMatch(/not a readable ZIP archive/);
    const noHeader = join(dir, 'y.eval');
    writeFileSync(noHeader, zipSync({ 'samples/1_epoch_1.json': strToU8('{}') }));
    expect((await rejection(noHeader)).reason).toMatch(/no header\.json/);
  });
});

describe('Inspect importer: through the import pipeline', () => {
  it('imports all three real logs; gpt-4o-mini turns are priced from their tokens', async () => {
    const db = openDatabase(join(tempDir(), 'i.db'));
    const report = await importPaths(db, [join(fixtures, 'samples/inspect')]);
    expect(report.files.map((f) => [basename(f.path), f.format, f.status, f.episodes, f.turns])).toEqual([
      ['2025-05-12T20-27-36-04-00_browser.json', 'inspect', 'imported', 1, 5],
      ['log_streaming.eval', 'inspect', 'imported', 4, 4],
      ['mmlu-summary-choices.eval', 'inspect', 'imported', 1, 1],
    ]);
    const browserCost = db
      .prepare("SELECT e.total_cost FROM episodes e JOIN runs r ON r.id = e.run_id WHERE r.name = 'browser (openai/gpt-4o-mini)'")
      .pluck()
      .get() as number;
    // (15235 − 9088) × $0.15/M + 9088 × $0.075/M + 281 × $0.60/M
    expect(browserCost).toBeCloseTo(0.00177225, 10);
    expect(db.prepare("SELECT DISTINCT cost_source FROM turns t JOIN models m ON m.id = t.model_id WHERE m.name = 'gpt-4o-mini'").pluck().all()).toEqual(['priced']);
    expect(db.prepare('SELECT COUNT(*) FROM episodes WHERE success = 1').pluck().get()).toBe(4);
    db.close();
  });

  it('stores grader calls apart from the turns, with their own cost', async () => {
    const log = browserLog();
    (firstSample(log).events as Json[]).push(
      { event: 'span_begin', id: 'mgf', type: 'scorer', name: 'model_graded_fact' },
      { event: 'model', span_id: 'mgf', model: 'openai/gpt-4o-mini', output: { choices: [{ message: { role: 'assistant', content: 'GRADE: C' } }], usage: { input_tokens: 1000000, output_tokens: 0 } } },
      { event: 'span_end', id: 'mgf' },
    );
    const db = openDatabase(join(tempDir(), 'g.db'));
    await importPaths(db, [writeJson('graded.json', log)]);
    expect(db.prepare('SELECT n_turns FROM episodes').pluck().get()).toBe(5);
    expect(db.prepare('SELECT COUNT(*) FROM grader_calls').pluck().get()).toBe(1);
    expect(db.prepare('SELECT grader_cost FROM episodes').pluck().get()).toBeCloseTo(0.15, 10);
    expect(db.prepare('SELECT total_cost FROM episodes').pluck().get()).toBeCloseTo(0.00177225, 10);
    db.close();
  });
});
