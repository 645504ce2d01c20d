/**
 * OpenTelemetry GenAI traces (DESIGN §4): spans in OTLP JSON, OTLP JSON Lines or SDK span dumps
 * (otelSpans.ts reads the shapes), with `gen_ai.*` semconv attributes (current and deprecated names),
 * OpenInference `llm.*` attributes or the Vercel AI SDK's `ai.*` ones.
 *
 * How spans become episodes, in order:
 * 1. Each span is classified: model call (`llm`), embedding, tool execution, or other (agent, chain…).
 * 2. A model call logged twice — an SDK span around a provider span (`ai.generateText` around
 *    `ai.generateText.doGenerate`, a framework LLM span around the client's) — counts once, keeping the
 *    innermost span's numbers. The pairs are found by parent links, then by a shared response id, then
 *    (only for spans of one trace without parent links) by the same model and a time interval inside the other's.
 * 3. Calls and tools are grouped by `gen_ai.conversation.id` (or a session id), inherited from ancestor
 *    spans and from the rest of the trace, else by trace id.
 * 4. One turn per call, by start time; a tool span becomes the action and observation of the call that
 *    asked for it (matched by tool-call id, else the latest call that started before the tool).
 *
 * Embedding calls are not agent turns and are left out (with a warning). Cost is read only when logged
 * (`gen_ai.usage.cost`, `llm.cost.total`); otherwise the database prices tokens.
 */
import { basename } from 'node:path';
import { CANONICAL_SCHEMA, CanonicalEpisode, describeIssue, type CanonicalTurn } from '../../shared/canonical.ts';
import { inputMessages, newInputs, outputMessage, type Message, type ToolCall } from './otelMessages.ts';
import { readOtelSpans, type Attr, type OtelSpan } from './otelSpans.ts';
import { ImportError, type ImportContext, type Importer } from './types.ts';

type Kind = 'llm' | 'embedding' | 'tool' | 'other';

interface Node {
  span: OtelSpan;
  idx: number;
  kind: Kind;
  parent: Node | null;
  /** An outer span of a call counted through an inner one. */
  dropped: boolean;
  /** For a kept call: its outer spans, nearest first. */
  outers: Node[];
  /** For an outer span: how many kept calls it wraps (its numbers are a fallback only when it wraps one). */
  inners: number;
}

const MAX_NAME = 300;
const MAX_TOOL_NAME = 200;
/** Time slack when deciding that one call's interval lies inside another's (clocks round to ms). */
const NEST_SLACK_MS = 5;

const VERCEL_LLM = new Set([
  'ai.generateText', 'ai.generateText.doGenerate', 'ai.streamText', 'ai.streamText.doStream',
  'ai.generateObject', 'ai.generateObject.doGenerate', 'ai.streamObject', 'ai.streamObject.doStream',
]);
const LLM_OPERATIONS = new Set(['chat', 'text_completion', 'generate_content', 'completion']);
const CONVERSATION_KEYS = ['gen_ai.conversation.id', 'session.id', 'ai.telemetry.metadata.sessionId', 'langfuse.session.id'];
const MODEL_KEYS = ['gen_ai.response.model', 'gen_ai.request.model', 'llm.model_name', 'ai.response.model', 'ai.model.id'];
const TOKEN_KEYS = {
  in: ['gen_ai.usage.input_tokens', 'gen_ai.usage.prompt_tokens', 'llm.token_count.prompt', 'ai.usage.inputTokens', 'ai.usage.promptTokens'],
  out: ['gen_ai.usage.output_tokens', 'gen_ai.usage.completion_tokens', 'llm.token_count.completion', 'ai.usage.outputTokens', 'ai.usage.completionTokens'],
  cached: ['gen_ai.usage.cache_read.input_tokens', 'gen_ai.usage.cache_read_input_tokens', 'llm.token_count.prompt_details.cache_read', 'ai.usage.cachedInputTokens'],
};
const COST_KEYS = ['gen_ai.usage.cost', 'llm.cost.total'];

function kindOf(s: OtelSpan): Kind {
  const get = (k: string): string | null => {
    const v = s.attrs.get(k)?.value;
    return typeof v === 'string' ? v : null;
  };
  const op = get('gen_ai.operation.name')?.toLowerCase() ?? null;
  const oi = get('openinference.span.kind')?.toUpperCase() ?? null;
  const vercel = get('ai.operationId');
  if (op === 'execute_tool' || oi === 'TOOL' || vercel === 'ai.toolCall') return 'tool';
  if (op === 'embeddings' || oi === 'EMBEDDING' || vercel?.startsWith('ai.embed')) return 'embedding';
  if (oi === 'LLM' || (vercel !== null && VERCEL_LLM.has(vercel)) || (op !== null && LLM_OPERATIONS.has(op))) return 'llm';
  if (op !== null || oi !== null || vercel !== null) return 'other';
  const hasModel = MODEL_KEYS.some((k) => s.attrs.has(k));
  const hasUsage = [...TOKEN_KEYS.in, ...TOKEN_KEYS.out].some((k) => s.attrs.has(k));
  return hasModel && hasUsage ? 'llm' : 'other';
}

/** True for the provider-level span of an SDK pair (`….doGenerate`, `….doStream`). */
const isProviderSpan = (n: Node): boolean => /\.do(Generate|Stream)$/.test(String(n.span.attrs.get('ai.operationId')?.value ?? n.span.name));

function fileStem(file: string): string {
  return basename(file).replace(/\.(jsonl|ndjson|json)$/i, '') || basename(file);
}

class EpisodeBuilder {
  private readonly nodes: Node[];
  private readonly byKey = new Map<string, Node>();
  private readonly convMemo = new Map<Node, string | null>();
  private readonly traceConv = new Map<string, Set<string>>();

  constructor(
    private readonly file: string,
    spans: OtelSpan[],
    private readonly ctx: ImportContext,
  ) {
    this.nodes = spans.map((span, idx) => ({ span, idx, kind: kindOf(span), parent: null, dropped: false, outers: [], inners: 0 }));
    for (const n of this.nodes) {
      if (n.span.traceId !== null && n.span.spanId !== null) this.byKey.set(`${n.span.traceId}\u0000${n.span.spanId}`, n);
    }
    for (const n of this.nodes) {
      if (n.span.parentId !== null) n.parent = this.byKey.get(`${n.span.traceId}\u0000${n.span.parentId}`) ?? null;
    }
    for (const n of this.nodes) this.checkAcyclic(n);
    for (const n of this.nodes) {
      const conv = this.ownConversation(n);
      if (conv !== null && n.span.traceId !== null) {
        let set = this.traceConv.get(n.span.traceId);
        if (!set) this.traceConv.set(n.span.traceId, (set = new Set()));
        set.add(conv);
      }
    }
  }

  private fail(line: number, reason: string): never {
    throw new ImportError(this.file, line, reason);
  }

  private checkAcyclic(n: Node): void {
    const seen = new Set<Node>([n]);
    for (let p = n.parent; p; p = p.parent) {
      if (seen.has(p)) this.fail(n.span.line, `span "${n.span.name}": parent links form a cycle`);
      seen.add(p);
    }
  }

  private *ancestors(n: Node): Generator<Node> {
    for (let p = n.parent; p; p = p.parent) yield p;
  }

  // ---- attribute readers (errors carry the attribute's line) ----

  private attr(s: OtelSpan, keys: readonly string[]): (Attr & { key: string }) | null {
    for (const key of keys) {
      const a = s.attrs.get(key);
      if (a && a.value !== null && a.value !== '') return { ...a, key };
    }
    return null;
  }

  private text(s: OtelSpan, keys: readonly string[], max = Infinity): string | null {
    const a = this.attr(s, keys);
    if (!a) return null;
    if (Array.isArray(a.value)) this.fail(a.line, `${a.key}: expected a string, got an array`);
    const v = String(a.value).trim();
    if (v.length > max) this.fail(a.line, `${a.key}: longer than ${max} characters (${v.length})`);
    return v === '' ? null : v;
  }

  private count(s: OtelSpan, keys: readonly string[]): number | null {
    const a = this.attr(s, keys);
    if (!a) return null;
    const v = typeof a.value === 'string' && /^\d+$/.test(a.value) ? Number(a.value) : a.value;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) {
      this.fail(a.line, `${a.key}: expected a non-negative integer, got ${JSON.stringify(a.value).slice(0, 80)}`);
    }
    return v;
  }

  private amount(s: OtelSpan, keys: readonly string[]): number | null {
    const a = this.attr(s, keys);
    if (!a) return null;
    const v = typeof a.value === 'string' && a.value.trim() !== '' ? Number(a.value) : a.value;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
      this.fail(a.line, `${a.key}: expected a non-negative number, got ${JSON.stringify(a.value).slice(0, 80)}`);
    }
    return v;
  }

  // ---- grouping ----

  private ownConversation(n: Node): string | null {
    return this.text(n.span, CONVERSATION_KEYS, MAX_NAME);
  }

  private conversation(n: Node): string | null {
    if (this.convMemo.has(n)) return this.convMemo.get(n) ?? null;
    let conv = this.ownConversation(n);
    for (const a of this.ancestors(n)) conv ??= this.ownConversation(a);
    for (const o of n.outers) conv ??= this.conversation(o);
    if (conv === null && n.span.traceId !== null) {
      const set = this.traceConv.get(n.span.traceId);
      if (set?.size === 1) conv = [...set][0] ?? null;
    }
    this.convMemo.set(n, conv);
    return conv;
  }

  private episodeKey(n: Node): string {
    return this.conversation(n) ?? n.span.traceId ?? fileStem(this.file);
  }

  // ---- one call logged twice ----

  private modelNames(n: Node): Set<string> {
    const names = new Set<string>();
    for (const k of MODEL_KEYS) {
      const v = n.span.attrs.get(k)?.value;
      if (typeof v === 'string' && v !== '') names.add(v.toLowerCase());
    }
    return names;
  }

  private responseId(n: Node): string | null {
    const direct = this.text(n.span, ['gen_ai.response.id', 'ai.response.id']);
    if (direct) return direct;
    const meta = n.span.attrs.get('ai.response.providerMetadata')?.value;
    if (typeof meta !== 'string') return null;
    try {
      const parsed: unknown = JSON.parse(meta);
      if (typeof parsed !== 'object' || parsed === null) return null;
      for (const provider of Object.values(parsed)) {
        const id = (provider as { responseId?: unknown } | null)?.responseId;
        if (typeof id === 'string' && id !== '') return id;
      }
    } catch {
      // Provider metadata is informative only.
    }
    return null;
  }

  private drop(outer: Node, inner: Node): void {
    if (outer === inner) return;
    outer.dropped = true;
    if (!inner.outers.includes(outer)) inner.outers.push(outer);
  }

  private dedupeCalls(): Node[] {
    const llm = this.nodes.filter((n) => n.kind === 'llm');
    // (a) Parent links: an LLM span with an LLM descendant is the outer of that call.
    for (const n of llm) for (const a of this.ancestors(n)) if (a.kind === 'llm') this.drop(a, n);
    // (b) Same response id (the Vercel SDK pairs spans from different traces this way).
    const byResponse = new Map<string, Node[]>();
    for (const n of llm) {
      if (n.dropped) continue;
      const id = this.responseId(n);
      if (id === null) continue;
      const group = byResponse.get(id);
      if (group) group.push(n);
      else byResponse.set(id, [n]);
    }
    for (const group of byResponse.values()) {
      if (group.length < 2) continue;
      const inner = group.find(isProviderSpan) ?? [...group].sort((a, b) => duration(a) - duration(b))[0];
      if (!inner) continue;
      for (const g of group) this.drop(g, inner);
    }
    // (c) Spans without parent links, in the same trace: the same model in a time interval inside the other's.
    const loose = new Map<string, Node[]>();
    for (const n of llm) {
      if (n.dropped || n.parent !== null || n.span.startMs === null || n.span.endMs === null) continue;
      const key = n.span.traceId ?? '';
      const list = loose.get(key);
      if (list) list.push(n);
      else loose.set(key, [n]);
    }
    for (const trace of loose.values()) {
      trace.sort((a, b) => (a.span.startMs as number) - (b.span.startMs as number) || duration(b) - duration(a));
      for (let i = 0; i < trace.length; i++) {
        const outer = trace[i] as Node;
        const end = (outer.span.endMs as number) + NEST_SLACK_MS;
        const names = this.modelNames(outer);
        for (let j = i + 1; j < trace.length; j++) {
          const inner = trace[j] as Node;
          if ((inner.span.startMs as number) > end) break;
          if ((inner.span.endMs as number) > end) continue;
          if (![...this.modelNames(inner)].some((m) => names.has(m))) continue;
          this.drop(outer, inner);
        }
      }
    }
    const calls = llm.filter((n) => !n.dropped);
    for (const c of calls) for (const o of c.outers) o.inners++;
    return calls;
  }

  /** The call's own value, else that of an outer span wrapping only this call. */
  private pick<T>(call: Node, read: (s: OtelSpan) => T | null): T | null {
    const own = read(call.span);
    if (own !== null) return own;
    for (const o of call.outers) {
      if (o.inners !== 1) continue;
      const v = read(o.span);
      if (v !== null) return v;
    }
    return null;
  }

  // ---- episodes ----

  build(): CanonicalEpisode[] {
    const calls = this.dedupeCalls();
    const embeddings = this.nodes.filter((n) => n.kind === 'embedding').length;
    if (embeddings > 0) this.ctx.warn(`${embeddings} embedding span(s) left out: embeddings are not agent turns`);
    if (calls.length === 0) {
      this.fail(1, `no model calls (LLM spans with gen_ai.*, llm.* or ai.* attributes) among ${this.nodes.length} span(s)`);
    }

    const groups = new Map<string, Node[]>();
    for (const c of calls) {
      const key = this.episodeKey(c);
      const g = groups.get(key);
      if (g) g.push(c);
      else groups.set(key, [c]);
    }
    for (const g of groups.values()) {
      if (g.every((c) => c.span.startMs !== null)) {
        g.sort((a, b) => (a.span.startMs as number) - (b.span.startMs as number) || a.idx - b.idx);
      } else g.sort((a, b) => a.idx - b.idx);
    }
    const tools = this.attachTools(groups);
    // Every span by episode, once: agent names and evaluations may sit on spans that are not calls.
    const members = new Map<string, Node[]>();
    for (const n of this.nodes) {
      const key = this.episodeKey(n);
      if (!groups.has(key)) continue;
      const list = members.get(key);
      if (list) list.push(n);
      else members.set(key, [n]);
    }

    const episodes: { ep: CanonicalEpisode; start: number; idx: number }[] = [];
    for (const [key, group] of groups) {
      const ep = this.episode(key, group, tools, members.get(key) ?? []);
      const first = group[0] as Node;
      episodes.push({ ep, start: first.span.startMs ?? Infinity, idx: first.idx });
    }
    return episodes.sort((a, b) => a.start - b.start || a.idx - b.idx).map((e) => e.ep);
  }

  private toolCalls(call: Node): ToolCall[] {
    return this.pick(call, (s) => {
      const out = outputMessage(s.attrs, s.events);
      return out.toolCalls.length > 0 ? out.toolCalls : null;
    }) ?? [];
  }

  private attachTools(groups: Map<string, Node[]>): Map<Node, Node[]> {
    const attached = new Map<Node, Node[]>();
    const byCallId = new Map<string, Node>();
    for (const group of groups.values()) {
      for (const c of group) {
        for (const tc of this.toolCalls(c)) if (tc.id) byCallId.set(`${this.episodeKey(c)}\u0000${tc.id}`, c);
      }
    }
    let orphans = 0;
    const toolNodes = this.nodes.filter((n) => n.kind === 'tool' && ![...this.ancestors(n)].some((a) => a.kind === 'tool'));
    for (const t of toolNodes) {
      const key = this.episodeKey(t);
      const callId = this.text(t.span, ['gen_ai.tool.call.id', 'ai.toolCall.id', 'tool_call.id']);
      let owner = callId ? byCallId.get(`${key}\u0000${callId}`) : undefined;
      if (!owner) {
        const group = groups.get(key) ?? [];
        const start = t.span.startMs;
        const before = start !== null
          ? group.filter((c) => c.span.startMs !== null && c.span.startMs <= start)
          : group.filter((c) => c.idx < t.idx);
        owner = before[before.length - 1];
      }
      if (!owner) {
        orphans++;
        continue;
      }
      const list = attached.get(owner);
      if (list) list.push(t);
      else attached.set(owner, [t]);
    }
    if (orphans > 0) this.ctx.warn(`${orphans} tool span(s) left out: no model call before them in their trace`);
    for (const list of attached.values()) {
      list.sort((a, b) => (a.span.startMs ?? 0) - (b.span.startMs ?? 0) || a.idx - b.idx);
    }
    return attached;
  }

  private toolName(t: Node): string {
    return (
      this.text(t.span, ['gen_ai.tool.name', 'tool.name', 'ai.toolCall.name'], MAX_TOOL_NAME) ??
      (t.span.name.replace(/^execute_tool\s+/, '').trim().slice(0, MAX_TOOL_NAME) || 'tool')
    );
  }

  private episode(key: string, group: Node[], tools: Map<Node, Node[]>, members: Node[]): CanonicalEpisode {
    const first = group[0] as Node;
    const messages = group.map((c) => this.pick(c, (s) => {
      const m = inputMessages(s.attrs, s.events);
      return m.length > 0 ? m : null;
    }) ?? []);
    const turns = group.map((c, t) => {
      const turn = this.turn(c, t, tools.get(c) ?? [], messages.slice(t + 1));
      // The first call's prompt is the task; a call whose input was not recorded has no known new messages.
      const inputs = t > 0 && (messages[t]?.length ?? 0) > 0 ? newInputs(messages[t - 1] ?? [], messages[t] ?? []) : [];
      return inputs.length > 0 ? { ...turn, inputs } : turn;
    });
    const taskText = messages[0]?.find((m) => m.role === 'user')?.text ?? null;
    const service = this.text(first.span, ['service.name']) ??
      (() => {
        const v = first.span.resource.get('service.name')?.value;
        return typeof v === 'string' && v !== '' ? v : null;
      })();
    const agent = group.map((c) => this.pick(c, (s) => this.text(s, ['gen_ai.agent.name'], MAX_NAME))).find((v) => v !== null) ??
      members.filter((n) => n.kind === 'other')
        .map((n) => this.text(n.span, ['gen_ai.agent.name'], MAX_NAME)).find((v) => v !== null) ?? null;
    const raw = {
      schema: CANONICAL_SCHEMA,
      run: this.ctx.runName ?? service ?? fileStem(this.file),
      episode_id: key,
      task: { text: taskText },
      outcome: this.outcome(members),
      policy: agent ? { name: agent } : null,
      turns,
    };
    const parsed = CanonicalEpisode.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const turnIndex = issue?.path[0] === 'turns' && typeof issue.path[1] === 'number' ? issue.path[1] : 0;
      this.fail((group[turnIndex] ?? first).span.line, `episode ${key}: ${describeIssue(parsed.error)}`);
    }
    return parsed.data;
  }

  private turn(call: Node, t: number, tools: Node[], later: Message[][]): CanonicalTurn {
    const s = call.span;
    const model = this.pick(call, (x) => this.text(x, MODEL_KEYS, MAX_NAME));
    if (model === null) this.ctx.warn(`span "${s.name}" (line ${s.line}) names no model: recorded as "unknown"`);
    const out = this.pick(call, (x) => {
      const o = outputMessage(x.attrs, x.events);
      return o.text !== '' || o.toolCalls.length > 0 ? o : null;
    }) ?? { text: '', toolCalls: [] };
    const tokens = {
      in: this.pick(call, (x) => this.count(x, TOKEN_KEYS.in)),
      out: this.pick(call, (x) => this.count(x, TOKEN_KEYS.out)),
      cached: this.pick(call, (x) => this.count(x, TOKEN_KEYS.cached)),
    };
    const latency = s.startMs !== null && s.endMs !== null ? Math.round((s.endMs - s.startMs) * 1000) / 1000 : null;

    let action: CanonicalTurn['action'];
    let observation: string | null = null;
    const errors: { type: string; severity: 'high' | 'medium' }[] = [];
    if (s.error !== null) errors.push({ type: 'span_error', severity: 'high' });
    if (tools.length > 0) {
      const names = tools.map((x) => this.toolName(x));
      const lines = tools.map((x, i) => `${names[i]}(${this.text(x.span, ['gen_ai.tool.call.arguments', 'ai.toolCall.args', 'ai.toolCall.input', 'tool.parameters', 'input.value']) ?? ''})`);
      const results = tools.map((x, i) => {
        const result = this.text(x.span, ['gen_ai.tool.call.result', 'ai.toolCall.result', 'ai.toolCall.output', 'output.value']) ?? '';
        if (x.span.error !== null) errors.push({ type: 'tool_error', severity: 'medium' });
        const body = x.span.error !== null ? `error: ${x.span.error}${result ? `\n${result}` : ''}` : result;
        return tools.length > 1 ? `${names[i]}: ${body}` : body;
      });
      action = { type: 'tool', tool: names[0], text: [out.text, ...lines].filter((x) => x !== '').join('\n') };
      observation = results.join('\n\n');
    } else if (out.toolCalls.length > 0) {
      const first = out.toolCalls[0] as ToolCall;
      if (first.name.length > MAX_TOOL_NAME) this.fail(s.line, `tool name longer than ${MAX_TOOL_NAME} characters`);
      action = {
        type: 'tool',
        tool: first.name,
        text: [out.text, ...out.toolCalls.map((c) => `${c.name}(${c.args})`)].filter((x) => x !== '').join('\n'),
      };
      // The results come back as tool messages in a later call's input.
      const results = out.toolCalls.map((c) => {
        for (const msgs of later) {
          const hit = c.id ? msgs.find((m) => m.role === 'tool' && m.toolCallId === c.id) : undefined;
          if (hit) return hit.text;
        }
        return null;
      });
      observation = results.every((r) => r === null) ? null : results.map((r) => r ?? '').join('\n\n');
    } else {
      action = { type: 'message', tool: null, text: out.text || null };
    }
    return {
      t,
      model: model ?? 'unknown',
      action,
      observation,
      tokens: tokens.in === null && tokens.out === null && tokens.cached === null ? null : tokens,
      cost_usd: this.pick(call, (x) => this.amount(x, COST_KEYS)),
      latency_ms: latency,
      errors: errors.length > 0 ? errors : null,
    };
  }

  /** Outcome only when an evaluation says so (`gen_ai.evaluation.score.value|label`, span or event). */
  private outcome(members: Node[]): CanonicalEpisode['outcome'] {
    let last: { score: number | null; label: string | null; at: number } | null = null;
    for (const n of members) {
      const sources = [n.span.attrs, ...n.span.events.filter((e) => e.name === 'gen_ai.evaluation.result').map((e) => e.attrs)];
      for (const attrs of sources) {
        const score = attrs.get('gen_ai.evaluation.score.value');
        const label = attrs.get('gen_ai.evaluation.score.label')?.value;
        if (!score && typeof label !== 'string') continue;
        const value = score ? Number(score.value) : null;
        if (value !== null && !Number.isFinite(value)) this.fail(score?.line ?? n.span.line, 'gen_ai.evaluation.score.value: expected a number');
        const at = n.span.endMs ?? n.idx;
        if (!last || at >= last.at) last = { score: value, label: typeof label === 'string' ? label : null, at };
      }
    }
    if (!last) return {};
    const label = last.label?.toLowerCase() ?? '';
    const success = /^(pass|passed|correct|true|success|yes)$/.test(label) ? true : /^(fail|failed|incorrect|false|failure|no)$/.test(label) ? false : null;
    const inUnit = last.score !== null && last.score >= 0 && last.score <= 1;
    return { score: last.score, score_range: inUnit ? [0, 1] : null, success };
  }
}

function duration(n: Node): number {
  return n.span.startMs !== null && n.span.endMs !== null ? n.span.endMs - n.span.startMs : Infinity;
}

const RESOURCE_SPANS = /(?<!\\)"resourceSpans"\s*:/;
const SPAN_IDS = /(?<!\\)"(?:traceId|spanId|trace_id|span_id|spanContext)"\s*:/;
const GENAI_ATTR_KEY = /(?<!\\)"(?:gen_ai\.[\w.]+|llm\.[\w.]+|openinference\.span\.kind|ai\.operationId)"\s*:/g;
const GENAI_LIST_KEY = /(?<!\\)"key"\s*:\s*"(?:gen_ai|llm|openinference)\./;

export const otelImporter: Importer = {
  format: 'otel',
  expects: 'OpenTelemetry GenAI spans: OTLP JSON (resourceSpans) or span objects with gen_ai.* / llm.* attributes',

  detect(head) {
    const h = head.replace(/^\uFEFF/, '').trimStart();
    if (!h.startsWith('{') && !h.startsWith('[')) return false;
    if (/"schema"\s*:\s*"routelens\/v1"/.test(h.slice(0, 4096))) return false;
    if (RESOURCE_SPANS.test(h)) return true;
    const genaiKeys = h.match(GENAI_ATTR_KEY)?.length ?? 0;
    if (SPAN_IDS.test(h) && (genaiKeys > 0 || GENAI_LIST_KEY.test(h))) return true;
    // A bare attribute map (semconv test fixtures): several gen_ai./llm. keys, no other format's markers.
    return h.startsWith('{') && genaiKeys >= 2;
  },

  async *read(file: string, ctx: ImportContext) {
    const { spans, duplicates } = await readOtelSpans(file, ctx);
    if (duplicates > 0) ctx.warn(`${duplicates} span(s) appear twice (same trace and span id): merged into one, the ended copy's values first`);
    const episodes = new EpisodeBuilder(file, spans, ctx).build();
    yield* episodes;
  },
};
