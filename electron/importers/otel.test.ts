import { writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { CanonicalEpisode } from '../../shared/canonical.ts';
import { openDatabase } from '../db/database.ts';
import { head, readEpisodes, walk } from './testing.ts';
import { useTempDir } from '../testing/tmp.ts';
import { otelImporter } from './otel.ts';
import { detectImporter, importPaths } from './pipeline.ts';
import { ImportError } from './types.ts';

const fixtures = fileURLToPath(new URL('../../fixtures/', import.meta.url));
const samples = join(fixtures, 'samples/otel');
const vercel = join(samples, 'vercel-ai-sdk-v6/all-spans.json');
const dialects = ['otel_genai_client_span_tool_calls', 'otel_genai_deprecated_client_span_tool_calls', 'openinference_client_span_tool_calls'];
const agentTools = join(samples, 'constructed/otlp-agent-tools.json');
const exportJsonl = join(samples, 'constructed/otlp-export.jsonl');
const tempDir = useTempDir();

const read = (file: string, runName?: string) => readEpisodes(otelImporter, file, runName);

async function rejection(file: string): Promise<{ error: ImportError; yielded: number }> {
  let yielded = 0;
  try {
    for await (const _ of otelImporter.read(file, { root: file, warn: () => {} })) yielded++;
  } catch (err) {
    if (err instanceof ImportError) return { error: err, yielded };
    throw err;
  }
  throw new Error(`${file} was not rejected`);
}

function write(name: string, content: unknown): string {
  const file = join(tempDir(), name);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return file;
}

const byId = (eps: CanonicalEpisode[], id: string): CanonicalEpisode => {
  const ep = eps.find((e) => e.episode_id === id);
  if (!ep) throw new Error(`no episode ${id} in ${eps.map((e) => e.episode_id).join(', ')}`);
  return ep;
};

// OTLP helpers for inline cases.
const S = (v: string) => ({ stringValue: v });
const I = (v: number) => ({ intValue: String(v) });
const kv = (attrs: Record<string, unknown>) =>
  Object.entries(attrs).map(([key, v]) => ({ key, value: typeof v === 'number' ? (Number.isInteger(v) ? I(v) : { doubleValue: v }) : S(String(v)) }));
const T0 = 1767261600000n * 1000000n;
const ns = (ms: number): string => String(T0 + BigInt(Math.round(ms * 1e6)));
interface SpanSpec { trace?: string; id: string; parent?: string; name?: string; start: number; end: number; attrs: Record<string, unknown>; status?: number }
const otlp = (spans: SpanSpec[], service = 'svc') => ({
  resourceSpans: [{
    resource: { attributes: kv({ 'service.name': service }) },
    scopeSpans: [{
      scope: { name: 'test' },
      spans: spans.map((s) => ({
        traceId: s.trace ?? 'aaaabbbbccccddddeeeeffff00001111', spanId: s.id, ...(s.parent ? { parentSpanId: s.parent } : {}),
        name: s.name ?? 'chat', startTimeUnixNano: ns(s.start), endTimeUnixNano: ns(s.end), attributes: kv(s.attrs),
        ...(s.status ? { status: { code: s.status, message: 'boom' } } : {}),
      })),
    }],
  }],
});
const chat = (model: string, tin: number, tout: number, extra: Record<string, unknown> = {}) => ({
  'gen_ai.operation.name': 'chat', 'gen_ai.request.model': model, 'gen_ai.usage.input_tokens': tin, 'gen_ai.usage.output_tokens': tout, ...extra,
});

describe('OTel importer: real samples', () => {
  it('Vercel AI SDK v6: each SDK + provider span pair is one turn with the provider numbers; embeddings left out', async () => {
    const { episodes, warnings } = await read(vercel);
    expect(episodes).toHaveLength(4);
    expect(episodes.map((e) => e.turns.length)).toEqual([1, 1, 1, 1]);
    expect(episodes.map((e) => e.run)).toEqual(Array(4).fill('all-spans'));
    // Grouped by the provider span's trace (the pairs sit in different traces).
    expect(episodes.map((e) => e.episode_id)).toEqual([
      'b3e700af9eab81e19f72f964d62a35af', 'edff2fc5854be6170e8cccccec0c82cf', '8f60802815d6e97da2dbc4708a8e5c7b', '478d4dcc697ecfabc5e7a3d6e4216291',
    ]);
    const turns = episodes.map((e) => e.turns[0]);
    expect(turns.map((t) => t?.model)).toEqual(Array(4).fill('gpt-4o-mini-2024-07-18'));
    expect(turns.map((t) => t?.tokens)).toEqual([
      { in: 14, out: 20, cached: null }, { in: 50, out: 9, cached: null }, { in: 63, out: 156, cached: null }, { in: 15, out: 112, cached: 0 },
    ]);
    // Not doubled: the file's provider spans hold 142 input tokens, and so do the turns.
    expect(turns.reduce((a, t) => a + (t?.tokens?.in ?? 0), 0)).toBe(142);
    // Latency is the provider span's: 1770131992.242 → 1770131994.021415667.
    expect(turns[0]?.latency_ms).toBeCloseTo(1779.416, 3);
    expect(turns.map((t) => t?.action.type)).toEqual(['message', 'message', 'message', 'message']);
    expect(turns[1]?.action.text).toBe('3 + 3 equals 6.');
    expect(turns[2]?.action.text).toMatch(/^\{"name":"Scrambled Eggs"/);
    expect(turns.every((t) => t?.cost_usd == null)).toBe(true);
    expect(episodes.map((e) => e.task.text)).toEqual([
      'Write a haiku about programming.', 'What is 2 + 2?', 'Generate a simple recipe for scrambled eggs.', 'Write a short poem about TypeScript.',
    ]);
    expect(episodes.every((e) => e.outcome.score == null && e.outcome.success == null)).toBe(true);
    expect(warnings).toEqual(['2 embedding span(s) left out: embeddings are not agent turns']);
  });

  for (const name of dialects) {
    it(`${name}: one call, resolved model, 97/52 tokens, the answer as a message`, async () => {
      const { episodes } = await read(join(samples, 'genai-attribute-dialects', `${name}.json`));
      expect(episodes).toHaveLength(1);
      const ep = episodes[0] as CanonicalEpisode;
      expect(ep.run).toBe(name);
      expect(ep.episode_id).toBe(name);
      expect(ep.task.text).toBe('Weather in Paris?');
      expect(ep.turns).toHaveLength(1);
      const turn = ep.turns[0];
      expect(turn?.model).toBe('gpt-4-0613');
      expect(turn?.tokens).toEqual({ in: 97, out: 52, cached: null });
      expect(turn?.latency_ms).toBeNull();
      // The get_weather call is history in the input (an earlier call not in the file), not this call's action.
      expect(turn?.action).toEqual({ type: 'message', tool: null, text: 'The weather in Paris is currently rainy with a temperature of 57°F.' });
    });
  }
});

describe('OTel importer: constructed OTLP', () => {
  it('GenAI semconv agent: framework + client span once, execute_tool as the action, logged cost, evaluation outcome', async () => {
    const { episodes, warnings } = await read(agentTools);
    expect(warnings).toEqual([]);
    expect(episodes.map((e) => e.episode_id)).toEqual(['conv-umbrella-42', 'sess-fib-7']);
    const ep = byId(episodes, 'conv-umbrella-42');
    expect(ep.run).toBe('weather-agent');
    expect(ep.policy?.name).toBe('weather-agent');
    expect(ep.task.text).toBe('Should I take an umbrella in Paris this afternoon?');
    expect(ep.outcome).toEqual({ score: 1, score_range: [0, 1], success: true });
    expect(ep.turns).toHaveLength(2);
    const [t0, t1] = ep.turns;
    expect(t0?.model).toBe('gpt-4o-mini-2024-07-18');
    expect(t0?.tokens).toEqual({ in: 120, out: 18, cached: null });
    expect(t0?.latency_ms).toBe(1185); // the inner (client) span, not the framework span around it
    expect(t0?.action.type).toBe('tool');
    expect(t0?.action.tool).toBe('get_weather');
    expect(t0?.action.text).toContain('"location": "Paris"');
    expect(t0?.observation).toBe('rain likely (80%), 12°C');
    expect(t1?.model).toBe('claude-sonnet-4-20250514');
    expect(t1?.tokens).toEqual({ in: 310, out: 41, cached: 256 });
    expect(t1?.cost_usd).toBe(0.001563);
    expect(t1?.action).toEqual({ type: 'message', tool: null, text: 'Yes: rain is likely (80%) this afternoon, so take an umbrella.' });
  });

  it('OpenInference agent: LLM tool_calls + TOOL span, grouped by session.id, llm.cost.total', async () => {
    const { episodes } = await read(agentTools);
    const ep = byId(episodes, 'sess-fib-7');
    expect(ep.run).toBe('fib-agent');
    expect(ep.turns.map((t) => t.model)).toEqual(['gpt-5-2025-08-07', 'deepseek-v3.2']);
    expect(ep.turns[0]?.action.tool).toBe('python');
    expect(ep.turns[0]?.action.text).toMatch(/^python\(\{"code"/);
    expect(ep.turns[0]?.observation).toBe('832040');
    expect(ep.turns[0]?.tokens).toEqual({ in: 58, out: 44, cached: null });
    expect(ep.turns[1]?.cost_usd).toBe(0.000041);
    expect(ep.turns[1]?.action.text).toBe('The 30th Fibonacci number is 832040.');
    expect(ep.outcome).toEqual({});
  });

  it('OTLP JSON Lines: a multi-step Vercel call over two batches counts its two steps, not the outer span', async () => {
    const { episodes } = await read(exportJsonl);
    const math = byId(episodes, '4bf92f3577b34da6a3ce929d0e0e4736');
    expect(math.run).toBe('math-bot');
    expect(math.turns).toHaveLength(2);
    expect(math.turns.map((t) => t.tokens)).toEqual([{ in: 61, out: 17, cached: null }, { in: 95, out: 11, cached: null }]);
    expect(math.turns[0]?.action).toMatchObject({ type: 'tool', tool: 'calculator' });
    expect(math.turns[0]?.observation).toBe('42');
    expect(math.turns[1]?.action.text).toBe('The square root of 1764 is 42.');
    expect(math.task.text).toBe('What is the square root of 1764?');
    // Deprecated names: gen_ai.usage.prompt_tokens / completion_tokens, indexed gen_ai.prompt.N / gen_ai.completion.N.
    const cap = byId(episodes, '9e107d9d372bb6826bd81d3542a419d6');
    expect(cap.run).toBe('capitals-bot');
    expect(cap.turns).toEqual([expect.objectContaining({
      model: 'gpt-4-0613', tokens: { in: 23, out: 7, cached: null }, action: { type: 'message', tool: null, text: 'Paris' }, latency_ms: 700,
    })]);
    expect(cap.task.text).toBe('Name the capital of France in one word.');
  });

  it('--run overrides service.name', async () => {
    const { episodes } = await read(agentTools, 'my-run');
    expect(episodes.map((e) => e.run)).toEqual(['my-run', 'my-run']);
  });
});

describe('OTel importer: grouping and de-duplication', () => {
  it('nested LLM spans without parent links, same model, inner interval: one turn with the inner numbers', async () => {
    const file = write('nested.json', otlp([
      { id: '0000000000000001', start: 0, end: 1000, attrs: chat('gpt-4o', 500, 90) },
      { id: '0000000000000002', start: 5, end: 990, attrs: chat('gpt-4o', 100, 20) },
      { id: '0000000000000003', start: 1100, end: 1500, attrs: chat('gpt-4o', 130, 25) }, // a later call: kept
      { id: '0000000000000004', start: 1200, end: 1300, attrs: chat('gpt-5', 10, 2) }, // overlapping, another model: kept
    ]));
    const { episodes } = await read(file);
    expect(episodes).toHaveLength(1);
    expect(episodes[0]?.turns.map((t) => [t.model, t.tokens?.in])).toEqual([['gpt-4o', 100], ['gpt-4o', 130], ['gpt-5', 10]]);
  });

  it('calls in different traces with the same model and the same interval stay apart', async () => {
    const spans = Array.from({ length: 3 }, (_, i) => ({
      trace: `${i}`.repeat(32), id: '0000000000000001', start: 0, end: 1000, attrs: chat('gpt-4o', 10 + i, 1),
    }));
    const { episodes } = await read(write('parallel-traces.json', otlp(spans)));
    expect(episodes.map((e) => e.turns.map((t) => t.tokens?.in))).toEqual([[10], [11], [12]]);
  });

  it('parallel sibling calls under an agent span are not merged even when one lies inside the other', async () => {
    const file = write('siblings.json', otlp([
      { id: '00000000000000a0', start: 0, end: 5000, attrs: { 'gen_ai.operation.name': 'invoke_agent' } },
      { id: '00000000000000a1', parent: '00000000000000a0', start: 10, end: 900, attrs: chat('gpt-4o', 1, 1) },
      { id: '00000000000000a2', parent: '00000000000000a0', start: 20, end: 800, attrs: chat('gpt-4o', 2, 2) },
    ]));
    const { episodes } = await read(file);
    expect(episodes[0]?.turns.map((t) => t.tokens?.in)).toEqual([1, 2]);
  });

  it('gen_ai.conversation.id joins traces into one episode; a parent span passes it on', async () => {
    const file = write('conv.json', otlp([
      { trace: 't1t1t1t1t1t1t1t1t1t1t1t1t1t1t1t1', id: '0000000000000001', start: 0, end: 100, attrs: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.conversation.id': 'c-9' } },
      { trace: 't1t1t1t1t1t1t1t1t1t1t1t1t1t1t1t1', id: '0000000000000002', parent: '0000000000000001', start: 10, end: 90, attrs: chat('gpt-4o', 1, 1) },
      { trace: 't2t2t2t2t2t2t2t2t2t2t2t2t2t2t2t2', id: '0000000000000003', start: 200, end: 300, attrs: chat('kimi-k2', 2, 2, { 'gen_ai.conversation.id': 'c-9' }) },
      { trace: 't3t3t3t3t3t3t3t3t3t3t3t3t3t3t3t3', id: '0000000000000004', start: 400, end: 500, attrs: chat('gpt-4o', 3, 3) },
    ]));
    const { episodes } = await read(file);
    expect(episodes.map((e) => [e.episode_id, e.turns.map((t) => t.model)])).toEqual([
      ['c-9', ['gpt-4o', 'kimi-k2']],
      ['t3t3t3t3t3t3t3t3t3t3t3t3t3t3t3t3', ['gpt-4o']],
    ]);
  });

  it('a tool call answered only in the next call\'s input becomes the observation; tool errors are logged errors', async () => {
    const out = JSON.stringify([{ role: 'assistant', parts: [{ type: 'tool_call', id: 'c1', name: 'search', arguments: { q: 'x' } }] }]);
    const input2 = JSON.stringify([{ role: 'tool', parts: [{ type: 'tool_call_response', id: 'c1', response: 'found x' }] }]);
    const file = write('answers.json', otlp([
      { id: '0000000000000001', start: 0, end: 100, attrs: chat('gpt-4o', 1, 1, { 'gen_ai.output.messages': out }) },
      { id: '0000000000000002', start: 200, end: 300, attrs: chat('gpt-4o', 2, 2, { 'gen_ai.input.messages': input2 }) },
      { id: '0000000000000003', start: 310, end: 320, status: 2, attrs: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'bash' } },
    ]));
    const { episodes } = await read(file);
    const [t0, t1] = episodes[0]?.turns ?? [];
    expect(t0?.action).toEqual({ type: 'tool', tool: 'search', text: 'search({"q":"x"})' });
    expect(t0?.observation).toBe('found x');
    expect(t0?.errors).toBeNull();
    expect(t1?.action.tool).toBe('bash');
    expect(t1?.observation).toBe('error: boom');
    expect(t1?.errors).toEqual([{ type: 'tool_error', severity: 'medium' }]);
  });

  it('reads Python to_json() spans printed one after another (console exporter), with ISO times', async () => {
    const span = (id: string, parent: string | null, start: string, end: string, attributes: Record<string, unknown>) => ({
      name: 'chat', context: { trace_id: '0xabc', span_id: id, trace_state: '[]' }, kind: 'SpanKind.CLIENT', parent_id: parent,
      start_time: start, end_time: end, status: { status_code: 'UNSET' }, attributes, events: [], links: [],
      resource: { attributes: { 'service.name': 'py-agent' }, schema_url: '' },
    });
    const text = [
      span('0x1', null, '2026-01-01T10:00:00.000000Z', '2026-01-01T10:00:01.500000Z', chat('gpt-4o-mini', 10, 5)),
      span('0x2', null, '2026-01-01T10:00:02.000000Z', '2026-01-01T10:00:02.250000Z', chat('gpt-4o-mini', 20, 6)),
    ].map((s) => JSON.stringify(s, null, 4)).join('\n');
    const { episodes } = await read(write('console.txt', text));
    expect(episodes).toHaveLength(1);
    expect(episodes[0]?.run).toBe('py-agent');
    expect(episodes[0]?.turns.map((t) => t.latency_ms)).toEqual([1500, 250]);
  });

  it('a span exported twice counts once, with a warning', async () => {
    const doc = otlp([{ id: '0000000000000001', start: 0, end: 10, attrs: chat('gpt-4o', 1, 1) }]);
    const line = JSON.stringify(doc);
    const { episodes, warnings } = await read(write('twice.jsonl', `${line}\n${line}\n`));
    expect(episodes[0]?.turns).toHaveLength(1);
    expect(warnings).toEqual(["1 span(s) appear twice (same trace and span id): merged into one, the ended copy's values first"]);
  });
});

describe('OTel importer: spans printed when they start and again when they end', () => {
  const console = join(samples, 'constructed/agent-framework-console.json');

  it('Agent Framework console output: each chat call once, with the ended copy\'s usage, response model and latency', async () => {
    const { episodes, warnings } = await read(console);
    expect(episodes).toHaveLength(1);
    const ep = episodes[0] as CanonicalEpisode;
    expect(ep.run).toBe('agent_framework');
    expect(ep.policy?.name).toBe('WeatherAgent');
    // 4 chat spans, each printed twice (8 copies), plus 2 tools, 2 invoke_agent and the scenario span: 9 pairs.
    expect(warnings).toEqual(["9 span(s) appear twice (same trace and span id): merged into one, the ended copy's values first"]);
    // The started copies name only the requested model and carry no usage: these numbers are the ended copies'.
    expect(ep.turns.map((t) => t.model)).toEqual(Array(4).fill('gpt-4o-mini-2024-07-18'));
    expect(ep.turns.map((t) => t.tokens)).toEqual([
      { in: 112, out: 18, cached: null }, { in: 171, out: 29, cached: null }, { in: 215, out: 17, cached: null }, { in: 254, out: 21, cached: null },
    ]);
    expect(ep.turns.map((t) => t.latency_ms)).toEqual([1290, 1530, 1040, 1040]);
    // The tool's result is on its ended copy only.
    expect(ep.turns.map((t) => t.observation ?? null)).toEqual([
      'The weather in Amsterdam is rainy with a high of 14C.', null, 'The weather in Paris is sunny with a high of 19C.', null,
    ]);
    expect(ep.turns[3]?.action.text).toBe('Paris is sunny with a high of 19°C: no umbrella needed there.');
  });

  it('keeps an attribute only the started copy has, and the ended copy wins in whichever order they come', async () => {
    const started = { id: '0000000000000001', start: 0, end: 0, attrs: { ...chat('gpt-4o', 0, 0), 'gen_ai.conversation.id': 'conv-1', 'gen_ai.usage.input_tokens': 1 } };
    const ended = { id: '0000000000000001', start: 0, end: 900, attrs: chat('gpt-4o', 40, 7, { 'gen_ai.response.model': 'gpt-4o-2024-08-06' }) };
    for (const order of [[started, ended], [ended, started]]) {
      const doc = otlp(order);
      // An unended span has no end time (OTLP writes 0, read as unset).
      for (const sp of doc.resourceSpans[0]?.scopeSpans[0]?.spans ?? []) if (sp.endTimeUnixNano === sp.startTimeUnixNano) sp.endTimeUnixNano = '0';
      const { episodes } = await read(write('twice.json', doc));
      expect(episodes.map((e) => e.episode_id)).toEqual(['conv-1']);
      expect(episodes[0]?.turns).toHaveLength(1);
      expect(episodes[0]?.turns[0]).toMatchObject({ model: 'gpt-4o-2024-08-06', tokens: { in: 40, out: 7 }, latency_ms: 900 });
    }
  });
});

describe('OTel importer: messages between calls', () => {
  it('a user message typed between two runs of the agent is the later call\'s input; tool results and replayed history are not', async () => {
    const { episodes } = await read(join(samples, 'constructed/agent-framework-console.json'));
    const ep = episodes[0] as CanonicalEpisode;
    expect(ep.task.text).toBe("What's the weather like in Amsterdam today? Should I bring an umbrella?");
    // Counted by hand in the file: the third call's input replays the second's, then the answer and one new user message.
    expect(ep.turns.map((t) => t.inputs ?? null)).toEqual([null, null, [{ role: 'user', text: 'And in Paris?' }], null]);
  });

  it('the real samples have no message between calls (each call is one turn or replays its history)', async () => {
    const files = [vercel, ...dialects.map((d) => join(samples, 'genai-attribute-dialects', `${d}.json`)), agentTools, exportJsonl];
    for (const file of files) {
      const { episodes } = await read(file);
      expect(episodes.flatMap((e) => e.turns.flatMap((t) => t.inputs ?? [])), file).toEqual([]);
    }
  });

  it('a stateful API that is sent only what is new: a new prompt and an injected instruction, not the tool result', async () => {
    const msgs = (list: unknown[]) => ({ 'gen_ai.input.messages': JSON.stringify(list) });
    const text = (role: string, content: string) => ({ role, parts: [{ type: 'text', content }] });
    const doc = otlp([
      { id: '0000000000000001', start: 0, end: 10, attrs: chat('gpt-4o', 10, 2, msgs([text('user', 'first task')])) },
      { id: '0000000000000002', start: 20, end: 30, attrs: chat('gpt-4o', 20, 2, msgs([{ role: 'tool', parts: [{ type: 'tool_call_response', id: 'c1', response: 'ok' }] }])) },
      { id: '0000000000000003', start: 40, end: 50, attrs: chat('gpt-4o', 30, 2, msgs([text('system', 'Be brief.'), text('user', 'now the second task')])) },
    ]);
    const { episodes } = await read(write('stateful.json', doc));
    expect(episodes[0]?.turns.map((t) => t.inputs ?? null)).toEqual([
      null, null, [{ role: 'system', text: 'Be brief.' }, { role: 'user', text: 'now the second task' }],
    ]);
  });
});

describe('OTel importer: hostile input', () => {
  const brokenCases: [string, RegExp][] = [
    ['otel-truncated.json', /:40: invalid JSON/],
    ['otel-wrong-type.json', /:69: attribute gen_ai\.usage\.input_tokens: intValue must be an integer/],
    ['otel-flat-wrong-type.json', /:12: gen_ai\.usage\.output_tokens: expected a non-negative integer, got "twenty"/],
    ['otel-cyclic-parents.json', /:20: span "chat gpt-4o-mini": parent links form a cycle/],
    ['otel-end-before-start.json', /:47: span "chat gpt-4o-mini" ends before it starts/],
    ['otel-deep-nesting.json', /:47: JSON nested deeper than 100 levels/],
    ['otel-huge-attribute.jsonl', /:2: gen_ai\.response\.model: longer than 300 characters/],
    ['otel-bad-jsonl.jsonl', /:3: invalid JSON/],
    ['otel-no-model-call.json', /:1: no model calls/],
  ];
  for (const [name, message] of brokenCases) {
    it(`${name} is rejected with its line and yields nothing`, async () => {
      const { error, yielded } = await rejection(join(fixtures, 'broken', name));
      expect(error.message).toMatch(message);
      expect(error.file).toContain(name);
      expect(yielded).toBe(0);
    });
  }

  it('kvlist nesting beyond 16 levels, unknown value types and wrong id types are errors with the line', async () => {
    let v: unknown = { stringValue: 'leaf' };
    for (let i = 0; i < 20; i++) v = { kvlistValue: { values: [{ key: `k${i}`, value: v }] } };
    const deep = otlp([{ id: '0000000000000001', start: 0, end: 1, attrs: chat('m', 1, 1) }]);
    const span = deep.resourceSpans[0]?.scopeSpans[0]?.spans[0] as { attributes: unknown[] };
    span.attributes.push({ key: 'x', value: v });
    expect((await rejection(write('deep.jsonl', `\n${JSON.stringify(deep)}\n`))).error.message).toMatch(/deep\.jsonl:2: attribute x\.k19\.k18.*nested deeper than 16 levels/);
    span.attributes.splice(-1, 1, { key: 'y', value: { mapValue: {} } });
    expect((await rejection(write('type.jsonl', JSON.stringify(deep)))).error.message).toMatch(/type\.jsonl:1: attribute y: unknown value type "mapValue"/);
    const badId = otlp([{ id: '0000000000000001', start: 0, end: 1, attrs: chat('m', 1, 1) }]);
    (badId.resourceSpans[0]?.scopeSpans[0]?.spans[0] as Record<string, unknown>).traceId = 42;
    expect((await rejection(write('id.json', badId))).error.message).toMatch(/id\.json:21: traceId: expected a string id/);
  });

  it('negative token counts, non-numeric cost and bad times are rejected', async () => {
    const neg = write('neg.json', otlp([{ id: '0000000000000001', start: 0, end: 1, attrs: chat('m', -3, 1) }]));
    expect((await rejection(neg)).error.message).toMatch(/gen_ai\.usage\.input_tokens: expected a non-negative integer, got -3/);
    const cost = write('cost.json', otlp([{ id: '0000000000000001', start: 0, end: 1, attrs: chat('m', 1, 1, { 'gen_ai.usage.cost': 'cheap' }) }]));
    expect((await rejection(cost)).error.message).toMatch(/gen_ai\.usage\.cost: expected a non-negative number/);
    const time = write('time.json', [{ name: 'x', spanContext: { traceId: 'a', spanId: 'b' }, startTime: 'yesterday', attributes: chat('m', 1, 1) }]);
    expect((await rejection(time)).error.message).toMatch(/time\.json:8: startTime: expected a time/);
  });

  it('text that is not OpenTelemetry data is refused, not guessed', async () => {
    expect((await rejection(write('other.json', { hello: 'world' }))).error.message).toMatch(/other\.json:1: not OpenTelemetry data/);
    expect((await rejection(write('scalar.json', '[1, 2]'))).error.message).toMatch(/scalar\.json:1: expected an OTLP export object/);
  });
});

describe('OTel importer: detection', () => {
  it('claims every OTel sample and broken OTel fixture', () => {
    for (const f of [...walk(samples), ...walk(join(fixtures, 'broken')).filter((f) => basename(f).startsWith('otel-'))]) {
      expect(otelImporter.detect(head(f), basename(f)), f).toBe(true);
      expect(detectImporter(head(f), basename(f))?.format, f).toBe('otel');
    }
  });

  it('claims no other fixture (canonical, mini-swe-agent, SWE-agent, Inspect, Uno…)', () => {
    const others = walk(fixtures).filter((f) => !relative(fixtures, f).startsWith('samples/otel') && !basename(f).startsWith('otel-'));
    expect(others.length).toBeGreaterThan(10);
    for (const f of others) expect(otelImporter.detect(head(f), basename(f)), f).toBe(false);
  });

  it('looks at content: OTLP, span arrays with gen_ai/llm attributes, bare attribute maps; not escaped keys inside strings', () => {
    expect(otelImporter.detect('{"resourceSpans":[', 'x.log')).toBe(true);
    expect(otelImporter.detect('[{"name":"chat","spanContext":{"traceId":"a"},"attributes":{"gen_ai.system":"openai"', 'spans')).toBe(true);
    expect(otelImporter.detect('{"traceId":"a","spanId":"b","attributes":[{"key":"llm.model_name"', 'x')).toBe(true);
    expect(otelImporter.detect('{"llm.model_name":"gpt-4","llm.token_count.prompt":3}', 'x.json')).toBe(true);
    // A trajectory whose messages quote span attributes keeps them escaped inside strings.
    expect(otelImporter.detect('{"info":{},"messages":[{"content":"{\\"gen_ai.system\\": 1, \\"traceId\\": 2, \\"gen_ai.x\\": 3}"}]}', 'a.traj.json')).toBe(false);
    expect(otelImporter.detect('{"schema":"routelens/v1","gen_ai.system":"x","gen_ai.y":1}', 'a.jsonl')).toBe(false);
    expect(otelImporter.detect('{"traceId":"a","spanId":"b","name":"GET /"}', 'http.json')).toBe(false);
    expect(otelImporter.detect('<plan round="1">', 'a.xml')).toBe(false);
  });
});

describe('OTel importer: into the database', () => {
  it('imports through the pipeline: turns, tools, logged and priced costs, no doubled tokens', async () => {
    const db = openDatabase(join(tempDir(), 'otel.db'));
    const report = await importPaths(db, [samples]);
    expect(report.files.map((f) => [basename(f.path), f.status, f.format, f.episodes, f.turns])).toEqual([
      ['agent-framework-console.json', 'imported', 'otel', 1, 4],
      ['otlp-agent-tools.json', 'imported', 'otel', 2, 4],
      ['otlp-export.jsonl', 'imported', 'otel', 2, 3],
      ['openinference_client_span_tool_calls.json', 'imported', 'otel', 1, 1],
      ['otel_genai_client_span_tool_calls.json', 'imported', 'otel', 1, 1],
      ['otel_genai_deprecated_client_span_tool_calls.json', 'imported', 'otel', 1, 1],
      ['all-spans.json', 'imported', 'otel', 4, 4],
    ]);
    const rows = db.prepare(`SELECT e.ext_id, t.t, m.name AS model, t.action_type, t.tool, t.tokens_in, t.cost, t.cost_source
      FROM turns t JOIN episodes e ON e.id = t.episode_id JOIN models m ON m.id = t.model_id
      WHERE e.ext_id IN ('conv-umbrella-42', 'sess-fib-7') ORDER BY e.ext_id, t.t`).all() as Record<string, unknown>[];
    expect(rows.map((r) => [r.ext_id, r.t, r.model, r.action_type, r.tool, r.tokens_in, r.cost_source])).toEqual([
      ['conv-umbrella-42', 0, 'gpt-4o-mini', 'tool', 'get_weather', 120, 'priced'],
      ['conv-umbrella-42', 1, 'claude-sonnet-4', 'message', null, 310, 'logged'],
      ['sess-fib-7', 0, 'gpt-5', 'tool', 'python', 58, 'priced'],
      ['sess-fib-7', 1, 'deepseek-v3.2', 'message', null, 131, 'logged'],
    ]);
    expect(rows[1]?.cost).toBe(0.001563);
    const vercelTokens = db.prepare(`SELECT SUM(t.tokens_in) FROM turns t JOIN episodes e ON e.id = t.episode_id
      JOIN runs r ON r.id = e.run_id WHERE r.name = 'all-spans'`).pluck().get();
    expect(vercelTokens).toBe(142);
    expect(db.prepare("SELECT success FROM episodes WHERE ext_id = 'conv-umbrella-42'").pluck().get()).toBe(1);
    db.close();
  });
});
