/**
 * The Uno-Orchestra trajectory grammar (seed 004, Prompt F.1), read and validated:
 *
 *   <plan round="r"> <subtask id="k" depends_on="ids">description</subtask> … </plan>
 *   <route subtask="k" model="M" skill="PRIMITIVE"/>   (or <route …>instruction</route>)
 *   <obs subtask="k">worker return</obs>
 *   <verify>self-check <replan/>?</verify> <replan/>?
 *   <final_answer>answer</final_answer>              (exactly one, last)
 *
 * optionally inside one `<trajectory id=… question=… gold=… score=… cost_usd=…>`.
 *
 * Transcripts are model output: observations hold shell commands (`a && b`), code and maths (`k<0`) that
 * are not well-formed XML. So this is a small tokenizer that knows only the grammar's tag names;
 * anything else that starts with `<` is text, entities are decoded where they are valid, and there is
 * no DOM. Nesting is fixed by the grammar, so depth is bounded by construction. Every error carries the
 * line of the offending element (`lineOf` maps a transcript line to a file line: identity for .xml
 * files, the record's line for JSON Lines).
 */

/** The closed primitive vocabulary 𝒮 (seed 004, App. A.6, Table 6). */
export const UNO_PRIMITIVES = [
  'direct_answer', 'reason', 'web_search', 'database_query', 'fact_check', 'read_document', 'read_code',
  'extract_field', 'parse_structured', 'execute_python', 'execute_shell', 'call_api', 'symbolic_math',
] as const;
const PRIMITIVES: ReadonlySet<string> = new Set(UNO_PRIMITIVES);

const TAGS = new Set(['trajectory', 'plan', 'subtask', 'route', 'obs', 'verify', 'replan', 'final_answer']);
/** Elements whose content is text only. */
const TEXT_ONLY = new Set(['subtask', 'obs', 'final_answer', 'route']);
const MAX_ATTR_CHARS = 1024 * 1024;
const MAX_ID = 200;
const MAX_MODEL = 300;

/** A transcript that breaks the grammar: `line` is the transcript's own 1-based line. */
export class UnoSyntaxError extends Error {
  constructor(
    readonly line: number,
    readonly reason: string,
  ) {
    super(`line ${line}: ${reason}`);
    this.name = 'UnoSyntaxError';
  }
}

export interface UnoRoute {
  model: string;
  primitive: string;
  instruction: string;
  line: number;
}

export interface UnoSubtask {
  id: string;
  dependsOn: string[];
  description: string;
  line: number;
  route: UnoRoute | null;
  obs: { text: string; line: number } | null;
}

export interface UnoVerify {
  text: string;
  replan: boolean;
  line: number;
}

export interface UnoRound {
  round: number;
  line: number;
  /** In plan order. */
  subtasks: UnoSubtask[];
  /** Subtask ids in the order their routes were emitted (the dispatch order). */
  routeOrder: string[];
  /** The last verify of the round (the round's conclusion). */
  verify: UnoVerify | null;
}

export interface UnoTranscript {
  /** Attributes of the `<trajectory>` wrapper, when there is one. */
  wrapper: Map<string, string> | null;
  wrapperLine: number;
  rounds: UnoRound[];
  finalAnswer: string;
  finalLine: number;
  /** Line of the last character, for errors about what is missing. */
  lastLine: number;
  /** Non-whitespace text found outside the grammar's elements (ignored). */
  strayTextLine: number | null;
}

type Token =
  | { kind: 'open'; name: string; attrs: Map<string, string>; selfClosing: boolean; line: number }
  | { kind: 'close'; name: string; line: number }
  | { kind: 'text'; text: string; line: number };

const ENTITY = /&(?:#(\d{1,7})|#x([0-9a-fA-F]{1,6})|(lt|gt|amp|quot|apos));/g;
const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decodeEntities(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(ENTITY, (whole, dec: string | undefined, hex: string | undefined, named: string | undefined) => {
    if (named) return NAMED[named] ?? whole;
    const cp = dec ? Number(dec) : parseInt(hex as string, 16);
    return cp > 0 && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff) ? String.fromCodePoint(cp) : whole;
  });
}

const countLines = (s: string, from: number, to: number): number => {
  let n = 0;
  for (let i = s.indexOf('\n', from); i !== -1 && i < to; i = s.indexOf('\n', i + 1)) n++;
  return n;
};

function* tokenize(src: string): Generator<Token> {
  let pos = 0;
  let line = 1;
  const tagName = /<(\/?)([a-z_]+)/y;
  const attrName = /[A-Za-z_][\w.:-]*/y;
  const unquoted = /[^\s"'<>=`/]+/y;
  const fail = (at: number, reason: string): never => {
    throw new UnoSyntaxError(at, reason);
  };
  let text = '';
  let textLine = 1;
  const flushText = function* (): Generator<Token> {
    if (text !== '') yield { kind: 'text', text: decodeEntities(text), line: textLine };
    text = '';
  };
  const addText = (s: string): void => {
    if (text === '') textLine = line;
    text += s;
  };

  while (pos < src.length) {
    const lt = src.indexOf('<', pos);
    if (lt === -1) {
      addText(src.slice(pos));
      line += countLines(src, pos, src.length);
      break;
    }
    if (lt > pos) {
      addText(src.slice(pos, lt));
      line += countLines(src, pos, lt);
    }
    pos = lt;
    const skipTo = (end: string, what: string): number => {
      const at = src.indexOf(end, pos);
      if (at === -1) fail(line, `${what} is not closed`);
      return at + end.length;
    };
    if (src.startsWith('<!--', pos)) {
      const end = skipTo('-->', 'comment');
      line += countLines(src, pos, end);
      pos = end;
      continue;
    }
    if (src.startsWith('<![CDATA[', pos)) {
      const end = skipTo(']]>', 'CDATA section');
      addText(src.slice(pos + 9, end - 3).replace(/&/g, '&amp;'));
      line += countLines(src, pos, end);
      pos = end;
      continue;
    }
    if (src.startsWith('<?', pos)) {
      const end = skipTo('?>', 'processing instruction');
      line += countLines(src, pos, end);
      pos = end;
      continue;
    }
    tagName.lastIndex = pos;
    const m = tagName.exec(src);
    const after = m ? src[pos + m[0].length] : undefined;
    if (!m || !TAGS.has(m[2] as string) || (after !== undefined && !/[\s/>]/.test(after))) {
      addText('<');
      pos++;
      continue;
    }
    yield* flushText();
    const name = m[2] as string;
    const tagLine = line;
    pos += m[0].length;
    const skipWs = (): void => {
      while (pos < src.length && /\s/.test(src[pos] as string)) {
        if (src[pos] === '\n') line++;
        pos++;
      }
    };
    if (m[1] === '/') {
      skipWs();
      if (src[pos] !== '>') fail(tagLine, `</${name}> tag is not terminated with '>'`);
      pos++;
      yield { kind: 'close', name, line: tagLine };
      continue;
    }
    const attrs = new Map<string, string>();
    let selfClosing = false;
    for (;;) {
      skipWs();
      if (pos >= src.length) fail(tagLine, `<${name}> tag is not terminated (the transcript ends first)`);
      if (src.startsWith('/>', pos)) {
        selfClosing = true;
        pos += 2;
        break;
      }
      if (src[pos] === '>') {
        pos++;
        break;
      }
      attrName.lastIndex = pos;
      const a = attrName.exec(src);
      if (!a) fail(line, `<${name}>: unexpected ${JSON.stringify(src[pos])} in the tag`);
      const key = (a as RegExpExecArray)[0];
      pos += key.length;
      skipWs();
      if (src[pos] !== '=') fail(line, `<${name}>: attribute ${key} has no value`);
      pos++;
      skipWs();
      let value: string;
      const q = src[pos];
      if (q === '"' || q === "'") {
        const end = src.indexOf(q, pos + 1);
        if (end === -1) fail(line, `<${name}>: attribute ${key} is not closed`);
        value = src.slice(pos + 1, end);
        line += countLines(src, pos, end);
        pos = end + 1;
      } else {
        unquoted.lastIndex = pos;
        const u = unquoted.exec(src);
        if (!u) fail(line, `<${name}>: attribute ${key} has no value`);
        value = (u as RegExpExecArray)[0];
        pos += value.length;
      }
      if (value.length > MAX_ATTR_CHARS) fail(tagLine, `<${name}>: attribute ${key} is longer than ${MAX_ATTR_CHARS} characters`);
      if (attrs.has(key)) fail(tagLine, `<${name}>: attribute ${key} appears twice`);
      attrs.set(key, decodeEntities(value));
    }
    yield { kind: 'open', name, attrs, selfClosing, line: tagLine };
  }
  yield* flushText();
}

interface Open {
  name: string;
  line: number;
  text: string;
  attrs: Map<string, string>;
}

/** Parses and validates one transcript; throws UnoSyntaxError with the transcript line of the fault. */
export function parseUnoTranscript(src: string): UnoTranscript {
  const fail = (line: number, reason: string): never => {
    throw new UnoSyntaxError(line, reason);
  };
  const lastLine = countLines(src, 0, src.length) + (src.endsWith('\n') ? 0 : 1);
  const out: UnoTranscript = {
    wrapper: null, wrapperLine: 1, rounds: [], finalAnswer: '', finalLine: 0, lastLine, strayTextLine: null,
  };
  const stack: Open[] = [];
  const subtasks = new Map<string, { sub: UnoSubtask; round: UnoRound }>();
  let round: UnoRound | null = null;
  let seenElement = false;
  let wrapperClosed = false;
  let finalSeen = false;
  let lastTopLevel: string | null = null;

  const topLevel = (): boolean => stack.length === 0 || (stack.length === 1 && stack[0]?.name === 'trajectory');
  const parent = (): Open | undefined => stack[stack.length - 1];
  const describeOpen = (o: Open): string => `<${o.name}> (line ${o.line})`;

  const closeRound = (): void => {
    if (!round) return;
    for (const sub of round.subtasks) {
      if (!sub.route) fail(sub.line, `subtask ${sub.id} of round ${round.round} has no <route>`);
    }
  };

  const checkPlan = (r: UnoRound, planLine: number): void => {
    if (r.subtasks.length === 0) fail(planLine, `<plan round="${r.round}"> has no <subtask>`);
    const here = new Map(r.subtasks.map((s) => [s.id, s]));
    for (const s of r.subtasks) {
      for (const dep of s.dependsOn) {
        if (!here.has(dep) && !subtasks.has(dep)) fail(s.line, `subtask ${s.id} depends on unknown subtask "${dep}"`);
      }
    }
    // Cycles can only run through this round (earlier rounds are closed). Kahn's algorithm, iterative so a
    // hostile plan of any size cannot overflow the stack; what it cannot order lies on or behind a cycle.
    const waiting = new Map(r.subtasks.map((s) => [s.id, s.dependsOn.filter((d) => here.has(d)).length]));
    const dependents = new Map<string, string[]>();
    for (const s of r.subtasks) {
      for (const d of s.dependsOn) {
        if (!here.has(d)) continue;
        const list = dependents.get(d);
        if (list) list.push(s.id);
        else dependents.set(d, [s.id]);
      }
    }
    const ready = r.subtasks.filter((s) => waiting.get(s.id) === 0).map((s) => s.id);
    for (let id = ready.pop(); id !== undefined; id = ready.pop()) {
      waiting.delete(id);
      for (const next of dependents.get(id) ?? []) {
        const n = (waiting.get(next) ?? 0) - 1;
        waiting.set(next, n);
        if (n === 0) ready.push(next);
      }
    }
    if (waiting.size === 0) return;
    // Walk unresolved dependencies from any stuck subtask until one repeats: that is a cycle.
    const path: string[] = [];
    const at = new Map<string, number>();
    let cur = [...waiting.keys()][0] as string;
    while (!at.has(cur)) {
      at.set(cur, path.length);
      path.push(cur);
      cur = (here.get(cur) as UnoSubtask).dependsOn.find((d) => waiting.has(d)) as string;
    }
    const cycle = [...path.slice(at.get(cur)), cur];
    const first = r.subtasks.find((x) => cycle.includes(x.id)) as UnoSubtask;
    fail(first.line, `depends_on cycle: ${cycle.join(' → ')}`);
  };

  const open = (tok: Extract<Token, { kind: 'open' }>): void => {
    const { name, attrs, line } = tok;
    const top = parent();
    if (wrapperClosed) fail(line, `<${name}> after </trajectory>`);
    if (name === 'trajectory') {
      if (seenElement || stack.length > 0) fail(line, '<trajectory> must wrap the whole transcript');
      if (tok.selfClosing) fail(line, '<trajectory/> is empty');
      out.wrapper = attrs;
      out.wrapperLine = line;
      seenElement = true;
      stack.push({ name, line, text: '', attrs });
      return;
    }
    seenElement = true;
    if (top && TEXT_ONLY.has(top.name)) {
      fail(line, name === 'route' && top.name === 'route' ? `nested <route> inside ${describeOpen(top)}` : `<${name}> inside ${describeOpen(top)}`);
    }
    if (name === 'subtask') {
      if (top?.name !== 'plan') fail(line, '<subtask> outside a <plan>');
    } else if (name === 'replan') {
      const inVerify = top?.name === 'verify';
      if (!inVerify && !(topLevel() && lastTopLevel === 'verify')) fail(line, '<replan/> must be inside or right after a <verify>');
      if (round?.verify) round.verify.replan = true;
    } else if (!topLevel()) {
      fail(line, `<${name}> inside ${describeOpen(top as Open)}`);
    }
    if (finalSeen && name === 'final_answer') fail(line, `second <final_answer> (the first is on line ${out.finalLine})`);
    if (finalSeen && name !== 'replan') fail(line, `<${name}> after <final_answer> (line ${out.finalLine})`);

    switch (name) {
      case 'plan': {
        const raw = attrs.get('round');
        if (raw === undefined) fail(line, '<plan> has no round attribute');
        const r = Number((raw as string).trim());
        if (!/^\d+$/.test((raw as string).trim()) || !Number.isSafeInteger(r)) fail(line, `<plan round="${raw}">: round must be a non-negative integer`);
        const prev = out.rounds[out.rounds.length - 1];
        if (prev && r <= prev.round) fail(line, `round ${r} is not greater than the previous round ${prev.round} (rounds must strictly increase)`);
        closeRound();
        round = { round: r, line, subtasks: [], routeOrder: [], verify: null };
        out.rounds.push(round);
        break;
      }
      case 'subtask': {
        const id = attrs.get('id')?.trim();
        if (!id) fail(line, '<subtask> has no id');
        if ((id as string).length > MAX_ID) fail(line, `subtask id longer than ${MAX_ID} characters`);
        const prev = subtasks.get(id as string);
        if (prev) fail(line, `subtask id ${id} is already used (line ${prev.sub.line})`);
        const deps = (attrs.get('depends_on') ?? '').split(/[\s,;]+/).filter((d) => d !== '');
        if (deps.some((d) => d.length > MAX_ID)) fail(line, `depends_on entry longer than ${MAX_ID} characters`);
        const sub: UnoSubtask = { id: id as string, dependsOn: [...new Set(deps)], description: '', line, route: null, obs: null };
        (round as UnoRound).subtasks.push(sub);
        subtasks.set(sub.id, { sub, round: round as UnoRound });
        break;
      }
      case 'route': {
        if (!round) fail(line, '<route> before any <plan>');
        const r = round as UnoRound;
        const id = attrs.get('subtask')?.trim() ?? attrs.get('id')?.trim();
        if (!id) fail(line, '<route> has no subtask attribute');
        const known = subtasks.get(id as string);
        if (!known) fail(line, `<route> references unknown subtask "${id}"`);
        const k = known as { sub: UnoSubtask; round: UnoRound };
        if (k.round !== r) fail(line, `<route> must reference a subtask of its round: ${id} is in round ${k.round.round}, this is round ${r.round}`);
        if (k.sub.route) fail(line, `subtask ${id} is routed twice (first on line ${k.sub.route.line})`);
        const model = attrs.get('model')?.trim();
        if (!model) fail(line, `<route subtask="${id}"> has no model`);
        if ((model as string).length > MAX_MODEL) fail(line, `<route subtask="${id}">: model name longer than ${MAX_MODEL} characters`);
        const skill = attrs.get('skill')?.trim() ?? attrs.get('primitive')?.trim();
        if (!skill) fail(line, `<route subtask="${id}"> has no skill`);
        if (!PRIMITIVES.has(skill as string)) {
          fail(line, `<route subtask="${id}">: unknown primitive "${(skill as string).slice(0, 100)}" (the vocabulary is ${UNO_PRIMITIVES.join(', ')})`);
        }
        k.sub.route = { model: model as string, primitive: skill as string, instruction: '', line };
        r.routeOrder.push(id as string);
        break;
      }
      case 'obs': {
        if (!round) fail(line, '<obs> before any <plan>');
        const id = attrs.get('subtask')?.trim() ?? attrs.get('id')?.trim();
        if (!id) fail(line, '<obs> has no subtask attribute');
        const k = subtasks.get(id as string);
        if (!k || k.round !== round || !k.sub.route) fail(line, `<obs subtask="${id}"> answers no <route> of round ${(round as UnoRound).round}`);
        const sub = (k as { sub: UnoSubtask }).sub;
        if (sub.obs) fail(line, `second <obs> for subtask ${id} (first on line ${sub.obs.line})`);
        sub.obs = { text: '', line };
        break;
      }
      case 'verify': {
        if (!round) fail(line, '<verify> before any <plan>');
        (round as UnoRound).verify = { text: '', replan: false, line };
        break;
      }
      case 'final_answer': {
        closeRound();
        finalSeen = true;
        out.finalLine = line;
        break;
      }
    }
    if (!tok.selfClosing) stack.push({ name, line, text: '', attrs });
    else finish({ name, line, text: '', attrs });
  };

  /** An element is complete: store its text. */
  const finish = (o: Open): void => {
    const text = o.text.trim();
    if (topLevel() && o.name !== 'trajectory') lastTopLevel = o.name;
    switch (o.name) {
      case 'plan':
        checkPlan(round as UnoRound, o.line);
        break;
      case 'subtask': {
        const r = round as UnoRound;
        (r.subtasks[r.subtasks.length - 1] as UnoSubtask).description = text;
        break;
      }
      case 'route': {
        const r = round as UnoRound;
        const sub = subtasks.get(r.routeOrder[r.routeOrder.length - 1] as string)?.sub;
        if (sub?.route) sub.route.instruction = text;
        break;
      }
      case 'obs': {
        const id = o.attrs.get('subtask')?.trim() ?? o.attrs.get('id')?.trim();
        const sub = subtasks.get(id as string)?.sub;
        if (sub?.obs) sub.obs.text = text;
        break;
      }
      case 'verify': {
        const v = (round as UnoRound).verify as UnoVerify;
        v.text = text;
        break;
      }
      case 'final_answer':
        out.finalAnswer = text;
        break;
      case 'trajectory':
        wrapperClosed = true;
        break;
    }
  };

  for (const tok of tokenize(src)) {
    if (tok.kind === 'text') {
      const top = parent();
      if (top && top.name !== 'trajectory' && top.name !== 'plan') top.text += tok.text;
      else if (tok.text.trim() !== '' && out.strayTextLine === null) out.strayTextLine = tok.line;
    } else if (tok.kind === 'open') {
      open(tok);
    } else {
      const top = parent();
      if (!top) fail(tok.line, `</${tok.name}> closes nothing`);
      if ((top as Open).name !== tok.name) fail(tok.line, `</${tok.name}> does not close ${describeOpen(top as Open)}`);
      stack.pop();
      finish(top as Open);
    }
  }
  const unclosed = stack.find((o) => o.name !== 'trajectory') ?? stack[0];
  if (unclosed) {
    fail(unclosed.line, `${describeOpen(unclosed)} is not closed (the transcript ends at line ${lastLine})`);
  }
  if (!finalSeen) fail(lastLine, 'no <final_answer> (a transcript ends with exactly one)');
  return out;
}
