/**
 * Reads the span shapes OpenTelemetry tools write into one normalised form (`OtelSpan`), keeping the
 * line of every span and attribute for error messages. Shapes, per top-level JSON value:
 *
 * - OTLP JSON (`{resourceSpans:[{resource, scopeSpans:[{spans:[…]}]}]}`, also the older
 *   `instrumentationLibrarySpans`), with typed attribute lists `[{key, value:{stringValue|intValue|…}}]`;
 * - a span object or an array of them as SDKs serialise spans: the JS SDK (`spanContext`, `startTime:
 *   [s, ns]`, flat `attributes`) and Python `to_json()` (`context.trace_id`, ISO `start_time`);
 * - a bare attribute map (`{"gen_ai.request.model": …}`), as in semconv test fixtures: one span with no
 *   ids and no times.
 *
 * A file whose first non-empty line is a whole JSON object is read as JSON Lines (one OTLP export
 * request or span per line, what the collector's file exporter writes), streamed line by line; any other
 * file is one document (or several values one after another, what console exporters print), parsed
 * with positions.
 */
import { parseJsonLine, readLines } from './lineReader.ts';
import { JsonSyntaxError, nestedDeeperThan, parseLocatedJson } from './jsonDocument.ts';
import { ImportError, type ImportContext } from './types.ts';

export type AttrScalar = string | number | boolean | null;
export type AttrValue = AttrScalar | AttrScalar[];
export interface Attr {
  value: AttrValue;
  line: number;
}
export type Attrs = Map<string, Attr>;

export interface OtelSpan {
  /** Line where the span object starts. */
  line: number;
  traceId: string | null;
  spanId: string | null;
  parentId: string | null;
  name: string;
  startMs: number | null;
  endMs: number | null;
  attrs: Attrs;
  resource: Attrs;
  /** Null for a span whose status is not an error; else the status message (or 'error'). */
  error: string | null;
  events: { name: string; attrs: Attrs }[];
}

/** A JSON Lines line or a span array is refused past this: it bounds memory. */
const MAX_LINE_BYTES = 64 * 1024 * 1024;
/** A single JSON document is held whole while parsed; beyond this, export JSON Lines instead. */
const MAX_DOCUMENT_BYTES = 256 * 1024 * 1024;
/** Nesting allowed inside one attribute value (kvlist / nested maps); OTLP itself needs about 12 levels. */
const MAX_ATTR_DEPTH = 16;
/** JSON Lines get the depth limit that parseLocatedJson gives whole documents (its default). */
const MAX_JSON_DEPTH = 100;

/** Attribute namespaces that make a bare JSON object a span attribute map. */
export const GENAI_KEY = /^(?:gen_ai|llm|openinference|ai)\./;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

interface Locator {
  lineOf(value: unknown, fallback: number): number;
  keyLine(object: unknown, key: string, fallback: number): number;
}
const oneLine = (line: number): Locator => ({ lineOf: () => line, keyLine: () => line });

class SpanCollector {
  readonly spans: OtelSpan[] = [];
  /** Where each (trace, span) id pair sits in `spans`, to merge a second copy into the first. */
  private readonly seen = new Map<string, number>();
  duplicates = 0;

  constructor(
    private readonly file: string,
    /** Where values are; JSON Lines replaces it per line. */
    public at: Locator,
  ) {}

  private fail(line: number, reason: string): never {
    throw new ImportError(this.file, line, reason);
  }

  /** One top-level JSON value of the file. */
  collect(value: unknown, line: number): void {
    if (Array.isArray(value)) {
      value.forEach((item) => this.collectItem(item, this.at.lineOf(item, line)));
    } else {
      this.collectItem(value, line);
    }
  }

  private collectItem(value: unknown, line: number): void {
    if (!isObj(value)) this.fail(line, 'expected an OTLP export object, a span object or a span attribute map');
    if ('resourceSpans' in value) return this.otlpRequest(value, line);
    if (looksLikeSpan(value)) return this.add(this.flatSpan(value, line, new Map()));
    if (Object.keys(value).some((k) => GENAI_KEY.test(k))) {
      const attrs: Attrs = new Map();
      for (const [k, v] of Object.entries(value)) this.putFlat(attrs, k, v, this.at.keyLine(value, k, line), 0);
      return this.add({
        line, traceId: null, spanId: null, parentId: null, name: '', startMs: null, endMs: null, attrs,
        resource: new Map(), error: null, events: [],
      });
    }
    this.fail(line, 'not OpenTelemetry data: expected "resourceSpans", a span (name, ids, attributes) or gen_ai.*/llm.* attributes');
  }

  private add(span: OtelSpan): void {
    if (span.traceId !== null && span.spanId !== null) {
      const key = `${span.traceId}\u0000${span.spanId}`;
      const at = this.seen.get(key);
      if (at !== undefined) {
        this.duplicates++;
        this.spans[at] = mergeCopies(this.spans[at] as OtelSpan, span);
        return;
      }
      this.seen.set(key, this.spans.length);
    }
    this.spans.push(span);
  }

  private array(owner: Obj, key: string, line: number): unknown[] {
    const v = owner[key];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) this.fail(this.at.keyLine(owner, key, line), `${key}: expected an array`);
    return v;
  }

  private otlpRequest(req: Obj, line: number): void {
    for (const rs of this.array(req, 'resourceSpans', line)) {
      const rsLine = this.at.lineOf(rs, line);
      if (!isObj(rs)) this.fail(rsLine, 'resourceSpans[]: expected an object');
      const resource: Attrs = new Map();
      if (rs.resource !== undefined && rs.resource !== null) {
        if (!isObj(rs.resource)) this.fail(this.at.keyLine(rs, 'resource', rsLine), 'resource: expected an object');
        this.putList(resource, this.array(rs.resource, 'attributes', rsLine), rsLine);
      }
      const scopes = [...this.array(rs, 'scopeSpans', rsLine), ...this.array(rs, 'instrumentationLibrarySpans', rsLine)];
      for (const ss of scopes) {
        const ssLine = this.at.lineOf(ss, rsLine);
        if (!isObj(ss)) this.fail(ssLine, 'scopeSpans[]: expected an object');
        for (const span of this.array(ss, 'spans', ssLine)) {
          const spanLine = this.at.lineOf(span, ssLine);
          if (!isObj(span)) this.fail(spanLine, 'spans[]: expected a span object');
          this.add(this.flatSpan(span, spanLine, resource));
        }
      }
    }
  }

  /** Any span object: OTLP (`traceId`, `startTimeUnixNano`), JS SDK (`spanContext`, hrtime) or Python (`context`). */
  private flatSpan(s: Obj, line: number, resource: Attrs): OtelSpan {
    const ctx = isObj(s.spanContext) ? s.spanContext : isObj(s.context) ? s.context : s;
    const parentCtx = isObj(s.parentSpanContext) ? s.parentSpanContext : null;
    const id = (owner: Obj, keys: string[]): string | null => {
      for (const k of keys) {
        const v = owner[k];
        if (v === undefined || v === null || v === '') continue;
        if (typeof v !== 'string') this.fail(this.at.keyLine(owner, k, line), `${k}: expected a string id`);
        if (v.length > 300) this.fail(this.at.keyLine(owner, k, line), `${k}: id longer than 300 characters`);
        return v;
      }
      return null;
    };
    const name = s.name ?? '';
    if (typeof name !== 'string') this.fail(this.at.keyLine(s, 'name', line), 'name: expected a string');
    const span: OtelSpan = {
      line,
      traceId: id(ctx, ['traceId', 'trace_id', 'traceID']),
      spanId: id(ctx, ['spanId', 'span_id', 'spanID']),
      parentId: (parentCtx && id(parentCtx, ['spanId'])) ?? id(s, ['parentSpanId', 'parent_id', 'parentId', 'parentSpanID']),
      name,
      startMs: this.time(s, ['startTimeUnixNano', 'startTime', 'start_time'], line),
      endMs: this.time(s, ['endTimeUnixNano', 'endTime', 'end_time'], line),
      attrs: new Map(),
      resource,
      error: null,
      events: [],
    };
    if (span.startMs !== null && span.endMs !== null && span.endMs < span.startMs) {
      this.fail(line, `span "${name}" ends before it starts`);
    }
    this.attributes(s.attributes, span.attrs, s, 'attributes', line);
    if (resource.size === 0 && isObj(s.resource)) {
      // Python to_json(): {"resource": {"attributes": {...}}}; some tools write the map directly.
      const r = s.resource;
      const map = isObj(r.attributes) || Array.isArray(r.attributes) ? r.attributes : r;
      span.resource = new Map();
      this.attributes(map, span.resource, r, 'attributes', line);
    }
    span.error = this.status(s.status, s, line);
    for (const ev of this.array(s, 'events', line)) {
      const evLine = this.at.lineOf(ev, line);
      if (!isObj(ev)) this.fail(evLine, 'events[]: expected an object');
      const evName = typeof ev.name === 'string' ? ev.name : '';
      const attrs: Attrs = new Map();
      this.attributes(ev.attributes, attrs, ev, 'attributes', evLine);
      span.events.push({ name: evName, attrs });
    }
    return span;
  }

  private attributes(value: unknown, into: Attrs, owner: Obj, key: string, line: number): void {
    if (value === undefined || value === null) return;
    const at = this.at.keyLine(owner, key, line);
    if (Array.isArray(value)) this.putList(into, value, at);
    else if (isObj(value)) {
      for (const [k, v] of Object.entries(value)) this.putFlat(into, k, v, this.at.keyLine(value, k, at), 0);
    } else this.fail(at, `${key}: expected an attribute list or map`);
  }

  /** OTLP `[{key, value: AnyValue}]`. */
  private putList(into: Attrs, list: unknown[], line: number, prefix = '', depth = 0): void {
    for (const kv of list) {
      const kvLine = this.at.lineOf(kv, line);
      if (!isObj(kv) || typeof kv.key !== 'string') this.fail(kvLine, 'attribute: expected {"key": string, "value": {...}}');
      this.putAny(into, prefix + kv.key, kv.value, this.at.keyLine(kv, 'key', kvLine), depth);
    }
  }

  private putAny(into: Attrs, key: string, any: unknown, line: number, depth: number): void {
    if (depth > MAX_ATTR_DEPTH) this.fail(line, `attribute ${key}: nested deeper than ${MAX_ATTR_DEPTH} levels`);
    if (any === undefined || any === null) return void into.set(key, { value: null, line });
    if (!isObj(any)) this.fail(line, `attribute ${key}: expected a typed value ({"stringValue": …})`);
    const scalar = this.anyScalar(key, any, line);
    if (scalar !== undefined) return void into.set(key, { value: scalar, line });
    if (isObj(any.arrayValue)) {
      const values = any.arrayValue.values ?? [];
      if (!Array.isArray(values)) this.fail(line, `attribute ${key}: arrayValue.values must be an array`);
      const out: AttrScalar[] = values.map((v) => {
        if (!isObj(v)) this.fail(line, `attribute ${key}: array element must be a typed value`);
        const s = this.anyScalar(key, v, line);
        return s === undefined ? JSON.stringify(v) : s;
      });
      return void into.set(key, { value: out, line });
    }
    if (isObj(any.kvlistValue)) {
      const values = any.kvlistValue.values ?? [];
      if (!Array.isArray(values)) this.fail(line, `attribute ${key}: kvlistValue.values must be an array`);
      return this.putList(into, values, line, `${key}.`, depth + 1);
    }
    if (Object.keys(any).length === 0) return void into.set(key, { value: null, line });
    this.fail(line, `attribute ${key}: unknown value type ${JSON.stringify(Object.keys(any)[0])}`);
  }

  private anyScalar(key: string, any: Obj, keyAt: number): AttrScalar | undefined {
    const field = Object.keys(any)[0] ?? '';
    const line = this.at.keyLine(any, field, keyAt);
    if ('stringValue' in any) {
      if (typeof any.stringValue !== 'string') this.fail(line, `attribute ${key}: stringValue must be a string`);
      return any.stringValue;
    }
    if ('intValue' in any) {
      const v = any.intValue;
      const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : NaN;
      if (!Number.isInteger(n)) this.fail(line, `attribute ${key}: intValue must be an integer, got ${JSON.stringify(v)}`);
      return n;
    }
    if ('doubleValue' in any) {
      const v = any.doubleValue;
      const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : NaN;
      if (Number.isNaN(n) && v !== 'NaN') this.fail(line, `attribute ${key}: doubleValue must be a number, got ${JSON.stringify(v)}`);
      return n;
    }
    if ('boolValue' in any) {
      if (typeof any.boolValue !== 'boolean') this.fail(line, `attribute ${key}: boolValue must be true or false`);
      return any.boolValue;
    }
    if ('bytesValue' in any) {
      if (typeof any.bytesValue !== 'string') this.fail(line, `attribute ${key}: bytesValue must be a base64 string`);
      return any.bytesValue;
    }
    return undefined;
  }

  /** SDK attribute maps: scalars, arrays of scalars, and (non-standard) nested maps flattened with dots. */
  private putFlat(into: Attrs, key: string, v: unknown, line: number, depth: number): void {
    if (depth > MAX_ATTR_DEPTH) this.fail(line, `attribute ${key}: nested deeper than ${MAX_ATTR_DEPTH} levels`);
    if (v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') {
      into.set(key, { value: v, line });
    } else if (Array.isArray(v)) {
      into.set(key, {
        value: v.map((x) => (x === null || typeof x === 'string' || typeof x === 'number' || typeof x === 'boolean' ? x : JSON.stringify(x))),
        line,
      });
    } else if (isObj(v)) {
      for (const [k, x] of Object.entries(v)) this.putFlat(into, `${key}.${k}`, x, this.at.keyLine(v, k, line), depth + 1);
    }
  }

  private time(s: Obj, keys: string[], line: number): number | null {
    for (const k of keys) {
      const v = s[k];
      if (v === undefined || v === null) continue;
      const at = this.at.keyLine(s, k, line);
      const ms = toMs(v, k.endsWith('UnixNano'));
      if (ms === undefined) this.fail(at, `${k}: expected a time ([seconds, nanoseconds], nanoseconds or an ISO date), got ${JSON.stringify(v).slice(0, 80)}`);
      return ms;
    }
    return null;
  }

  private status(status: unknown, s: Obj, line: number): string | null {
    if (status === undefined || status === null) return null;
    if (!isObj(status)) this.fail(this.at.keyLine(s, 'status', line), 'status: expected an object');
    const code = status.code ?? status.status_code;
    const isError = code === 2 || code === '2' || code === 'STATUS_CODE_ERROR' || code === 'ERROR' || code === 'StatusCode.ERROR';
    if (!isError) return null;
    const msg = status.message ?? status.description;
    return typeof msg === 'string' && msg !== '' ? msg : 'error';
  }
}

/**
 * One span printed twice: some exporters (Microsoft Agent Framework's console exporter) print a span when it starts,
 * without end time, response model or usage, and again when it ends. The ended copy wins (else the one with more
 * attributes, else the later); an attribute only the other copy has is kept, so nothing either copy logged is lost.
 * A span exported twice unchanged merges into itself.
 */
function mergeCopies(first: OtelSpan, second: OtelSpan): OtelSpan {
  const secondWins =
    (second.endMs !== null) !== (first.endMs !== null) ? second.endMs !== null : second.attrs.size >= first.attrs.size;
  const [win, lose] = secondWins ? [second, first] : [first, second];
  const attrs: Attrs = new Map(lose.attrs);
  for (const [k, v] of win.attrs) attrs.set(k, v);
  const resource: Attrs = new Map(lose.resource);
  for (const [k, v] of win.resource) resource.set(k, v);
  return {
    ...win,
    // Where the span was first seen: the file's order of spans is kept, and errors point at the copy read first.
    line: first.line,
    parentId: win.parentId ?? lose.parentId,
    name: win.name || lose.name,
    startMs: win.startMs ?? lose.startMs,
    endMs: win.endMs ?? lose.endMs,
    attrs,
    resource,
    error: win.error ?? lose.error,
    events: win.events.length > 0 ? win.events : lose.events,
  };
}

function looksLikeSpan(o: Obj): boolean {
  return (
    'spanContext' in o || 'spanId' in o || 'span_id' in o || 'traceId' in o ||
    (isObj(o.context) && 'span_id' in o.context) ||
    (typeof o.name === 'string' && ('attributes' in o || 'startTime' in o || 'start_time' in o || 'startTimeUnixNano' in o))
  );
}

/** Milliseconds since the epoch; null for an unset (zero) time; undefined when the value is not a time. */
function toMs(v: unknown, nanos: boolean): number | null | undefined {
  if (Array.isArray(v)) {
    const [sec, ns] = v;
    if (v.length !== 2 || typeof sec !== 'number' || typeof ns !== 'number' || sec < 0 || ns < 0) return undefined;
    return sec === 0 && ns === 0 ? null : sec * 1000 + ns / 1e6;
  }
  if (typeof v === 'string' && /^\d+$/.test(v)) return v === '0' ? null : Number(v) / 1e6;
  if (typeof v === 'number' && Number.isFinite(v) && v >= 0) {
    if (v === 0) return null;
    if (nanos || v >= 1e17) return v / 1e6;
    if (v >= 1e14) return v / 1e3;
    if (v >= 1e11) return v;
    return v * 1000;
  }
  if (typeof v === 'string') {
    const t = Date.parse(v);
    return Number.isNaN(t) ? undefined : t;
  }
  return undefined;
}

function isWholeJsonObject(text: string): boolean {
  const t = text.trim();
  if (!t.startsWith('{') || !t.endsWith('}')) return false;
  try {
    return isObj(JSON.parse(t));
  } catch {
    return false;
  }
}

export interface SpanFile {
  spans: OtelSpan[];
  /** Spans seen twice (same trace and span id), merged into one. */
  duplicates: number;
}

/** Reads every span of a file. Throws ImportError with the line of the first thing that is wrong. */
export async function readOtelSpans(file: string, ctx: ImportContext): Promise<SpanFile> {
  let mode: 'jsonl' | 'document' | null = null;
  const doc: string[] = [];
  let docBytes = 0;
  let docFirstLine = 1;
  let collector: SpanCollector | null = null;
  for await (const { lineNo, text } of readLines(file, { maxLineBytes: MAX_LINE_BYTES, onBytes: ctx.onBytes })) {
    if (mode === null) {
      if (text.trim() === '') continue;
      mode = isWholeJsonObject(text) ? 'jsonl' : 'document';
      docFirstLine = lineNo;
    }
    if (mode === 'jsonl') {
      if (text.trim() === '') continue;
      const value = parseJsonLine(file, lineNo, text);
      if (nestedDeeperThan(value, MAX_JSON_DEPTH)) throw new ImportError(file, lineNo, `JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
      // Every error on a JSON Lines line is reported at that line.
      collector ??= new SpanCollector(file, oneLine(lineNo));
      collector.at = oneLine(lineNo);
      collector.collect(value, lineNo);
    } else {
      docBytes += text.length + 1;
      if (docBytes > MAX_DOCUMENT_BYTES) {
        throw new ImportError(file, lineNo, `JSON document larger than ${MAX_DOCUMENT_BYTES / 1024 / 1024} MiB: export it as JSON Lines (one OTLP request per line)`);
      }
      doc.push(text);
    }
  }
  if (mode === 'document') {
    let parsed;
    try {
      parsed = parseLocatedJson(doc.join('\n'), { firstLine: docFirstLine });
    } catch (err) {
      if (err instanceof JsonSyntaxError) throw new ImportError(file, err.line, err.reason);
      throw err;
    }
    collector = new SpanCollector(file, parsed);
    for (const { value, line } of parsed.values) collector.collect(value, line);
  }
  return { spans: collector?.spans ?? [], duplicates: collector?.duplicates ?? 0 };
}
