/**
 * Alert rules (issue 36 item 5): the grammar, its parser and the evaluation of a rule over one episode's calls.
 * Pure, so the CLI, the watcher and the window's rule editor read a rule the same way. docs/alerts.md is the
 * user's description of the grammar; keep the two together.
 *
 *   rule      = [ "model" "~" TEXT ] condition          TEXT: no spaces; matched case-insensitively as a part of a name
 *   condition = "rate"   cmp amount "/" per [ "in" duration ]     spend per m / h / d over the last 10 min (or the window)
 *             | "cost"   cmp amount                              spend so far, USD
 *             | "calls"  cmp whole                               calls so far
 *             | "streak" cmp whole                               longest run of consecutive calls (to one model, or to
 *                                                               models the filter matches)
 *             | "switches" cmp whole                             model switches so far (onto a matching model)
 *             | "errors" cmp whole [ "in" (whole | duration) ]   calls with errors: in the episode, in the most errored
 *                                                               N consecutive calls, or in the last duration
 *   cmp       = ">" | ">=" | "<" | "<=" | "="
 *   amount    = [ "$" ] decimal          per = "m" | "h" | "d"          duration = whole ("s" | "m" | "h" | "d")
 *
 * Words are case-insensitive and spaces may sit between any two tokens. A rule is stored and shown in its canonical
 * spelling (formatRule): `model ~ Opus  streak > 20` is `model~opus streak>20`.
 *
 * Unknowns: a call whose cost is unknown is never read as $0, and a call without a time cannot be placed in a
 * window. A measure is therefore known only as a lower bound when such calls count towards it (costs are never
 * negative): `>` and `>=` fire on the known part alone (the true value can only be higher) and say what was not
 * counted; a rule the known part cannot decide is 'unknown', never 'quiet', and never fires.
 */

export type Comparator = '>' | '>=' | '<' | '<=' | '=';
export type RateUnit = 'm' | 'h' | 'd';

/** A window of time, as written (`10m`) and in milliseconds. */
export interface Duration {
  amount: number;
  unit: 's' | 'm' | 'h' | 'd';
  ms: number;
}

export type AlertCondition =
  | { measure: 'rate'; cmp: Comparator; usd: number; per: RateUnit; window: Duration; windowWritten: boolean }
  | { measure: 'cost'; cmp: Comparator; usd: number }
  | { measure: 'calls' | 'streak' | 'switches'; cmp: Comparator; n: number }
  | { measure: 'errors'; cmp: Comparator; n: number; within: { calls: number } | { time: Duration } | null };

/** A parsed rule: an optional model filter (lower case) and one condition. */
export interface AlertRule {
  model: string | null;
  condition: AlertCondition;
}

/** A failure's `error` names the rule and the column (for a terminal); `reason` is what is wrong alone (for an editor showing the rule). */
export type ParsedRule = { ok: true; rule: AlertRule; text: string } | { ok: false; error: string; column: number; reason: string };

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
/** The window `rate` reads when the rule names none: the issue's "cost rate over the last 10 minutes". */
export const DEFAULT_RATE_WINDOW: Duration = { amount: 10, unit: 'm', ms: 10 * UNIT_MS.m };
/** Longest window and largest count a rule may name: past these a rule is a typo, not a wish. */
const MAX_WINDOW_MS = 30 * UNIT_MS.d;
const MAX_COUNT = 1_000_000_000;
const MAX_RULE_LENGTH = 200;

const MEASURES = ['rate', 'cost', 'calls', 'streak', 'switches', 'errors'] as const;
const CMPS: Comparator[] = ['>=', '<=', '>', '<', '='];
const PATTERN = /[^\s<>=~]+/y;

class RuleSyntaxError extends Error {
  constructor(message: string, readonly at: number) {
    super(message);
  }
}

/** Reads one rule left to right; `at` is the index of the next unread character. */
class Reader {
  at = 0;
  constructor(readonly text: string) {}

  skipSpace(): void {
    while (this.at < this.text.length && /\s/.test(this.text[this.at] as string)) this.at++;
  }

  /** What stands at the cursor, for messages: the next token-ish run of characters, or "the end". */
  found(): string {
    this.skipSpace();
    if (this.at >= this.text.length) return 'the end of the rule';
    const m = /[a-z]+|\d+(?:\.\d+)?|[^\sa-z\d]{1,2}/iy;
    m.lastIndex = this.at;
    return `"${m.exec(this.text)?.[0] ?? this.text[this.at]}"`;
  }

  fail(expected: string): never {
    this.skipSpace();
    throw new RuleSyntaxError(`expected ${expected}, found ${this.found()}`, this.at);
  }

  word(): string | null {
    this.skipSpace();
    const m = /[a-z]+/iy;
    m.lastIndex = this.at;
    const w = m.exec(this.text)?.[0];
    return w ? w.toLowerCase() : null;
  }

  take(word: string): boolean {
    if (this.word() !== word) return false;
    this.at += word.length;
    return true;
  }

  takeSymbol(symbol: string): boolean {
    this.skipSpace();
    if (!this.text.startsWith(symbol, this.at)) return false;
    this.at += symbol.length;
    return true;
  }

  comparator(): Comparator {
    this.skipSpace();
    for (const c of CMPS) {
      if (this.text.startsWith(c, this.at)) {
        this.at += c.length;
        if (this.text[this.at] === '=' || this.text[this.at] === '>' || this.text[this.at] === '<') {
          throw new RuleSyntaxError(`"${c}${this.text[this.at]}" is not a comparison: use >, >=, <, <= or =`, this.at - c.length);
        }
        return c;
      }
    }
    return this.fail('a comparison (>, >=, <, <= or =)');
  }

  number(what: string, whole: boolean): number {
    this.skipSpace();
    const start = this.at;
    const m = /\d+(?:\.\d+)?/y;
    m.lastIndex = this.at;
    const digits = m.exec(this.text)?.[0];
    if (!digits) return this.fail(what);
    const n = Number(digits);
    if (whole && !Number.isInteger(n)) throw new RuleSyntaxError(`${what} must be a whole number, not ${digits}`, start);
    if (n > MAX_COUNT) throw new RuleSyntaxError(`${digits} is too large (at most ${MAX_COUNT})`, start);
    this.at += digits.length;
    return n;
  }

  amount(): number {
    this.takeSymbol('$');
    return this.number('an amount in USD (e.g. 5 or 0.50)', false);
  }

  /** `noUnit`: what to say when the number has no unit (else: which units there are). */
  duration(noUnit?: string): Duration {
    this.skipSpace();
    const start = this.at;
    const amount = this.number('a time window (e.g. 10m)', true);
    const unit = this.text[this.at]?.toLowerCase();
    if (unit !== 's' && unit !== 'm' && unit !== 'h' && unit !== 'd') {
      if (noUnit) throw new RuleSyntaxError(noUnit, start);
      throw new RuleSyntaxError(`expected a time unit after ${amount} (s, m, h or d), found ${this.found()}`, this.at);
    }
    this.at++;
    this.endOfToken();
    const ms = amount * UNIT_MS[unit];
    if (ms <= 0 || ms > MAX_WINDOW_MS) throw new RuleSyntaxError(`a time window must be more than 0 and at most 30d`, start);
    return { amount, unit, ms };
  }

  /** After a count or a window, the next character must end it: `in 5x` is a typo, not `in 5` then `x`. */
  endOfToken(): void {
    const next = this.text[this.at];
    if (next !== undefined && /[a-z\d.]/i.test(next)) this.fail('a space or the end of the rule');
  }
}

function parseCondition(r: Reader): AlertCondition {
  const measure = r.word();
  const known = MEASURES.find((m) => m === measure);
  if (!known) return r.fail(`a measure (${MEASURES.join(', ')})`);
  r.at += known.length;
  r.skipSpace();
  const cmp = r.comparator();
  switch (known) {
    case 'rate': {
      const usd = r.amount();
      if (!r.takeSymbol('/')) r.fail('"/" and a time unit after the amount (e.g. 5/h)');
      const per = r.word();
      if (per !== 'm' && per !== 'h' && per !== 'd') return r.fail('a time unit after "/" (m, h or d)');
      r.at += 1;
      let window = DEFAULT_RATE_WINDOW;
      let windowWritten = false;
      if (r.take('in')) {
        window = r.duration('rate reads a time window (e.g. in 30m), not a number of calls');
        windowWritten = true;
      }
      return { measure: 'rate', cmp, usd, per, window, windowWritten };
    }
    case 'cost':
      return { measure: 'cost', cmp, usd: r.amount() };
    case 'calls':
    case 'streak':
    case 'switches': {
      const n = r.number(`a whole number of ${known === 'switches' ? 'switches' : 'calls'}`, true);
      r.endOfToken();
      return { measure: known, cmp, n };
    }
    case 'errors': {
      const n = r.number('a whole number of calls with errors', true);
      r.endOfToken();
      if (!r.take('in')) return { measure: 'errors', cmp, n, within: null };
      r.skipSpace();
      const start = r.at;
      const count = r.number('a number of calls (e.g. 5) or a time window (e.g. 10m)', true);
      if (/[smhd]/i.test(r.text[r.at] ?? '')) {
        r.at = start;
        return { measure: 'errors', cmp, n, within: { time: r.duration() } };
      }
      r.endOfToken();
      if (count < 1) throw new RuleSyntaxError('a window of calls must hold at least 1 call', start);
      return { measure: 'errors', cmp, n, within: { calls: count } };
    }
  }
}

function parseRuleOrThrow(text: string): AlertRule {
  const r = new Reader(text);
  let model: string | null = null;
  if (r.take('model')) {
    if (!r.takeSymbol('~')) r.fail('"~" after model (model~TEXT matches models whose name holds TEXT)');
    r.skipSpace();
    PATTERN.lastIndex = r.at;
    const pattern = PATTERN.exec(text)?.[0];
    if (!pattern) return r.fail('a part of a model name after "~" (e.g. model~opus)');
    r.at += pattern.length;
    model = pattern.toLowerCase();
    r.skipSpace();
    if (r.at >= text.length) r.fail(`a condition after model~${pattern} (e.g. streak>20 or calls>100)`);
  }
  const condition = parseCondition(r);
  r.skipSpace();
  if (r.at < text.length) {
    const extra = condition.measure === 'rate' || condition.measure === 'errors' ? '"in" and a window, or ' : '';
    r.fail(`${extra}the end of the rule`);
  }
  return { model, condition };
}

/** A rule's text → its parts, or what is wrong and at which column (1-based), as `rule "…": column N: …`. */
export function parseRule(text: string): ParsedRule {
  const shown = text.length > 60 ? `${text.slice(0, 57)}…` : text;
  if (text.length > MAX_RULE_LENGTH) {
    const reason = `longer than ${MAX_RULE_LENGTH} characters`;
    return { ok: false, error: `rule "${shown}": ${reason}`, column: MAX_RULE_LENGTH + 1, reason };
  }
  if (text.trim() === '') {
    const reason = 'empty (e.g. rate>5/h, cost>10, model~opus streak>20, errors>=3 in 5)';
    return { ok: false, error: `rule "": ${reason}`, column: 1, reason };
  }
  try {
    const rule = parseRuleOrThrow(text);
    return { ok: true, rule, text: formatRule(rule) };
  } catch (e) {
    if (!(e instanceof RuleSyntaxError)) throw e;
    return { ok: false, error: `rule "${shown}": column ${e.at + 1}: ${e.message}`, column: e.at + 1, reason: e.message };
  }
}

const durationText = (d: Duration): string => `${d.amount}${d.unit}`;

/** The canonical spelling of a rule: no spaces inside a condition, one before a filter's condition and "in". */
export function formatRule(rule: AlertRule): string {
  const c = rule.condition;
  let body: string;
  switch (c.measure) {
    case 'rate':
      body = `rate${c.cmp}${c.usd}/${c.per}${c.windowWritten ? ` in ${durationText(c.window)}` : ''}`;
      break;
    case 'cost':
      body = `cost${c.cmp}${c.usd}`;
      break;
    case 'errors':
      body = `errors${c.cmp}${c.n}${c.within === null ? '' : ` in ${'calls' in c.within ? c.within.calls : durationText(c.within.time)}`}`;
      break;
    default:
      body = `${c.measure}${c.cmp}${c.n}`;
  }
  return rule.model === null ? body : `model~${rule.model} ${body}`;
}

/** One call of an episode as a rule reads it. `cost` null: unknown (never $0); `timestampMs` null: the log gives no time. */
export interface AlertCall {
  t: number;
  model: string;
  cost: number | null;
  timestampMs: number | null;
  hasError: boolean;
}

/**
 * What the log says of the episode as a whole. `totalUsd`: its cost as the log totals it (a session's usage totals,
 * an agent's final cost) where its calls' costs are not given one by one; null when there is none.
 */
export interface AlertEpisode {
  totalUsd: number | null;
}

/**
 * 'fires': the rule holds (on what is known, which suffices); 'quiet': it does not, for certain; 'unknown': calls
 * of unknown cost or time could decide it either way. `message` is one line saying what was measured.
 */
export interface RuleOutcome {
  outcome: 'fires' | 'quiet' | 'unknown';
  message: string;
}

/** The value a measure has on what is known, and how many calls it could not count (each could only raise it). */
interface Measured {
  known: number;
  text: string;
  uncounted: string[];
}

function holds(value: number, cmp: Comparator, limit: number): boolean {
  switch (cmp) {
    case '>':
      return value > limit;
    case '>=':
      return value >= limit;
    case '<':
      return value < limit;
    case '<=':
      return value <= limit;
    case '=':
      return value === limit;
  }
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;
/** Dollars as the CLI writes them: cents from $1, four decimals below. */
export const usdText = (x: number): string => (x >= 1 ? `$${x.toFixed(2)}` : `$${x.toFixed(4)}`);
const durationWords = (d: Duration): string => `${d.amount} ${{ s: 'sec', m: 'min', h: 'h', d: 'd' }[d.unit]}`;

/** The calls the filter keeps: all, or those to a model whose name holds the filter's text. */
function matcher(rule: AlertRule): (c: AlertCall) => boolean {
  const part = rule.model;
  return part === null ? () => true : (c) => c.model.toLowerCase().includes(part);
}

function modelWords(rule: AlertRule): string {
  return rule.model === null ? '' : ` to models matching "${rule.model}"`;
}

function inWindow(call: AlertCall, since: number): boolean | null {
  // A call stamped after `now` (a clock ahead of ours) is still recent: it counts.
  return call.timestampMs === null ? null : call.timestampMs > since;
}

function measure(rule: AlertRule, calls: readonly AlertCall[], now: number, episode: AlertEpisode): Measured {
  const c = rule.condition;
  const keep = matcher(rule);
  const chosen = calls.filter(keep);
  const unknownCost = (n: number): string[] => (n > 0 ? [`${plural(n, 'call')} of unknown cost not counted`] : []);
  const untimed = (n: number): string[] => (n > 0 ? [`${plural(n, 'call')} without a time not counted`] : []);
  switch (c.measure) {
    case 'cost': {
      const known = chosen.reduce((a, x) => a + (x.cost ?? 0), 0);
      const unknown = chosen.filter((x) => x.cost === null).length;
      // The log's total stands in for calls without their own cost; it cannot be split by model, so not with a filter.
      if (unknown > 0 && rule.model === null && episode.totalUsd !== null && episode.totalUsd >= known) {
        return { known: episode.totalUsd, text: `${usdText(episode.totalUsd)} spent so far (the log's total)`, uncounted: [] };
      }
      return { known, text: `${usdText(known)} spent so far${modelWords(rule)}`, uncounted: unknownCost(unknown) };
    }
    case 'rate': {
      const since = now - c.window.ms;
      let spent = 0;
      let noCost = 0;
      let noTime = 0;
      for (const x of chosen) {
        const recent = inWindow(x, since);
        if (recent === null) noTime++;
        else if (recent && x.cost === null) noCost++;
        else if (recent) spent += x.cost ?? 0;
      }
      const known = spent / (c.window.ms / UNIT_MS[c.per]);
      const text = `${usdText(known)}/${c.per}${modelWords(rule)} over the last ${durationWords(c.window)}`;
      return { known, text, uncounted: [...unknownCost(noCost), ...untimed(noTime)] };
    }
    case 'calls':
      return { known: chosen.length, text: `${plural(chosen.length, 'call')}${modelWords(rule)}`, uncounted: [] };
    case 'switches': {
      let n = 0;
      for (let i = 1; i < calls.length; i++) {
        const here = calls[i] as AlertCall;
        if (here.model !== (calls[i - 1] as AlertCall).model && keep(here)) n++;
      }
      return { known: n, text: `${plural(n, 'model switch', 'model switches')}${rule.model === null ? '' : ` onto models matching "${rule.model}"`}`, uncounted: [] };
    }
    case 'streak': {
      // Without a filter a streak is consecutive calls to one model; with one, consecutive calls the filter keeps.
      let best = 0;
      let bestModels: string[] = [];
      let run = 0;
      let runModels = new Set<string>();
      calls.forEach((x, i) => {
        const joins = rule.model === null ? i > 0 && (calls[i - 1] as AlertCall).model === x.model : keep(x);
        const starts = rule.model === null || keep(x);
        if (joins && run > 0) run++;
        else if (starts) {
          run = 1;
          runModels = new Set();
        } else run = 0;
        if (run > 0) runModels.add(x.model);
        if (run > best) {
          best = run;
          bestModels = [...runModels];
        }
      });
      // A filter can join many models in one streak (a log may name thousands): the message stays one short line.
      const sorted = bestModels.sort();
      const names = sorted.length > 3 ? `${sorted.slice(0, 3).join(', ')} and ${sorted.length - 3} more` : sorted.join(', ');
      return { known: best, text: best === 0 ? `no calls${modelWords(rule)}` : `${plural(best, 'call')} in a row to ${names}`, uncounted: [] };
    }
    case 'errors': {
      const within = c.within;
      if (within === null) {
        const n = chosen.filter((x) => x.hasError).length;
        return { known: n, text: `${plural(n, 'call')}${modelWords(rule)} with errors`, uncounted: [] };
      }
      if ('calls' in within) {
        // The most errored stretch of `within.calls` consecutive calls anywhere in the episode, so a burst
        // committed in one write is seen as surely as one committed call by call.
        const flags = calls.map((x) => (x.hasError && keep(x) ? 1 : 0));
        let inSpan = 0;
        let best = 0;
        let bestEnd = Math.min(within.calls, calls.length) - 1;
        for (let i = 0; i < flags.length; i++) {
          inSpan += flags[i] as number;
          if (i >= within.calls) inSpan -= flags[i - within.calls] as number;
          if (inSpan > best) {
            best = inSpan;
            bestEnd = i;
          }
        }
        const span = Math.min(within.calls, calls.length);
        const first = calls[Math.max(0, bestEnd - span + 1)];
        const last = calls[bestEnd];
        const where = first && last ? ` (turns ${first.t}–${last.t})` : '';
        return { known: best, text: `${plural(best, 'call')}${modelWords(rule)} with errors within ${plural(within.calls, 'call')}${where}`, uncounted: [] };
      }
      const since = now - within.time.ms;
      let n = 0;
      let noTime = 0;
      for (const x of chosen) {
        if (!x.hasError) continue;
        const recent = inWindow(x, since);
        if (recent === null) noTime++;
        else if (recent) n++;
      }
      return { known: n, text: `${plural(n, 'call')}${modelWords(rule)} with errors in the last ${durationWords(within.time)}`, uncounted: untimed(noTime) };
    }
  }
}

function limitOf(c: AlertCondition): number {
  return c.measure === 'rate' || c.measure === 'cost' ? c.usd : c.n;
}

/**
 * Whether `rule` holds for an episode whose calls are `calls` (in turn order) at time `now` (ms); `episode`, what
 * the log says of the whole (a total that stands in for calls of unknown cost in `cost` rules). The true value
 * of a measure is at least its known part, so with calls uncounted: `>`/`>=` fire when the known part already
 * holds, and a comparison the known part already breaks is quiet; anything else is 'unknown'.
 */
export function evaluateRule(rule: AlertRule, calls: readonly AlertCall[], now: number, episode: AlertEpisode = { totalUsd: null }): RuleOutcome {
  const m = measure(rule, calls, now, episode);
  const limit = limitOf(rule.condition);
  const cmp = rule.condition.cmp;
  const notes = m.uncounted.length > 0 ? `; ${m.uncounted.join(', ')}` : '';
  const message = `${m.text}${notes} (rule ${formatRule(rule)})`;
  if (m.uncounted.length === 0) return { outcome: holds(m.known, cmp, limit) ? 'fires' : 'quiet', message };
  if ((cmp === '>' || cmp === '>=') && holds(m.known, cmp, limit)) return { outcome: 'fires', message };
  // The known part is a floor: once it is past the limit, <, <= and = can no longer hold.
  if ((cmp === '<' || cmp === '<=' || cmp === '=') && m.known > limit) return { outcome: 'quiet', message };
  if (cmp === '<' && m.known >= limit) return { outcome: 'quiet', message };
  return { outcome: 'unknown', message: `cannot tell: ${message}` };
}

const CMP_WORDS: Record<Comparator, string> = { '>': 'more than', '>=': 'at least', '<': 'less than', '<=': 'at most', '=': 'exactly' };
const amountText = (x: number): string => (Number.isInteger(x) ? `$${x}` : Number.isInteger(Math.round(x * 1e6) / 1e4) ? `$${x.toFixed(2)}` : usdText(x));

/** What a rule watches for, in words (the rule editor shows it under the rule as it is typed). */
export function describeRule(rule: AlertRule): string {
  const c = rule.condition;
  const cmp = CMP_WORDS[c.cmp];
  const to = rule.model === null ? '' : ` to models matching "${rule.model}"`;
  switch (c.measure) {
    case 'rate':
      return `spend${to} of ${cmp} ${amountText(c.usd)}/${c.per} over the last ${durationWords(c.window)}`;
    case 'cost':
      return `${cmp} ${amountText(c.usd)} spent${to} so far`;
    case 'calls':
      return `${cmp} ${plural(c.n, 'call')}${to}`;
    case 'streak':
      return `${cmp} ${plural(c.n, 'call')} in a row${rule.model === null ? ' to one model' : to}`;
    case 'switches':
      return `${cmp} ${plural(c.n, 'model switch', 'model switches')}${rule.model === null ? '' : ` onto models matching "${rule.model}"`}`;
    case 'errors': {
      const within = c.within === null ? ' so far' : 'calls' in c.within ? ` within ${plural(c.within.calls, 'call')} in a row` : ` in the last ${durationWords(c.within.time)}`;
      return `${cmp} ${plural(c.n, 'call')}${to} with errors${within}`;
    }
  }
}
