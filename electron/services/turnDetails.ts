/** An episode's turns as the contract gives them to the inspector (shared/api.ts TurnDetail), from either store's rows. */
import { z } from 'zod';
import type { MessageDetail, TurnDetail, TurnErrorInfo } from '../../shared/api.ts';
import { ToolCall } from '../../shared/canonical.ts';
import { severityFromLevel } from '../../shared/formulas.ts';
import { describeProvenance } from '../db/costProvenance.ts';
import type { MessageRowRaw, TurnErrorRaw, TurnRowRaw } from '../db/turnQueries.ts';

/** A stored error row as the contract gives it. */
export function turnErrorInfo(e: TurnErrorRaw): TurnErrorInfo {
  return { type: e.type, severity: severityFromLevel(e.severity) ?? 'low', source: e.source };
}

/** An episode's messages (in order) as the contract gives them: those before each turn by its `t`, and those after the last. */
export function messageDetails(messages: readonly MessageRowRaw[]): { inputs: Map<number, MessageDetail[]>; final: MessageDetail[] } {
  const inputs = new Map<number, MessageDetail[]>();
  const final: MessageDetail[] = [];
  for (const m of messages) {
    const detail = { role: m.role, text: m.text, timestamp: m.timestamp };
    if (m.t === null) final.push(detail);
    else (inputs.get(m.t) ?? (inputs.set(m.t, []).get(m.t) as MessageDetail[])).push(detail);
  }
  return { inputs, final };
}

/**
 * An episode's turns as the inspector reads them, from its rows in either store: errors and candidate scores are
 * matched to their turn by `turn_id`, AEC targets by position, messages by `t`; the cumulative cost stops at the
 * first unknown one.
 */
export function turnDetails(
  rows: TurnRowRaw[], errors: TurnErrorRaw[], candidates: { turn_id: number; model: string; score: number }[],
  targets: readonly { s_tilde: number | null; penalty: number | null }[],
  inputs: ReadonlyMap<number, MessageDetail[]> = new Map(),
  /** The cost of the turns before `rows` (a page of a long episode); null when one of them is unknown. */
  costBefore: number | null = 0,
): TurnDetail[] {
  const byTurn = <T extends { turn_id: number }>(list: T[]): Map<number, T[]> => {
    const out = new Map<number, T[]>();
    for (const x of list) (out.get(x.turn_id) ?? (out.set(x.turn_id, []).get(x.turn_id) as T[])).push(x);
    return out;
  };
  const errorsOf = byTurn(errors);
  const candidatesOf = byTurn(candidates);
  let cumulative: number | null = costBefore;
  return rows.map((t, i) => {
    const known = t.cost_source !== 'none';
    if (cumulative !== null) cumulative = known ? cumulative + t.cost : null;
    const detail = parseTurnDetail(t.detail);
    return {
      id: t.id,
      t: t.t,
      model: t.model,
      switched: t.switched === 1,
      action_type: t.action_type,
      tool: t.tool,
      action: t.action,
      observation: t.observation,
      tokens_in: t.tokens_in,
      tokens_out: t.tokens_out,
      tokens_cached: t.tokens_cached,
      tokens_cache_write: t.tokens_cache_write,
      tokens_reasoning: t.tokens_reasoning,
      cost: known ? t.cost : null,
      cost_source: t.cost_source,
      price_provenance: t.cost_source === 'priced' && t.price_table
        ? describeProvenance({ price_table: t.price_table, version: t.price_version ?? '', cache_tier: t.cache_tier ?? 'none' })
        : null,
      cumulative_cost: cumulative,
      role: t.role,
      reasoning: detail.reasoning,
      message: detail.message,
      tool_calls: detail.tool_calls,
      notes: detail.notes,
      inputs: inputs.get(t.t) ?? [],
      timestamp: detail.timestamp,
      latency_ms: t.latency_ms,
      propensity: t.propensity,
      candidates: Object.fromEntries((candidatesOf.get(t.id) ?? []).map((c) => [c.model, c.score])),
      router:
        t.greedy_model === null && t.was_greedy === null && t.beta === null
          ? null
          : { greedy_model: t.greedy_model, was_greedy: t.was_greedy === null ? null : t.was_greedy === 1, beta: t.beta },
      errors: (errorsOf.get(t.id) ?? []).map(turnErrorInfo),
      max_severity: severityFromLevel(t.max_severity),
      s_tilde: targets[i]?.s_tilde ?? null,
      penalty: targets[i]?.penalty ?? null,
    };
  });
}

const TurnDetailExtra = z.object({
  reasoning: z.string().optional(),
  message: z.string().optional(),
  tool_calls: z.array(ToolCall).optional(),
  notes: z.array(z.string()).optional(),
  timestamp: z.string().optional(),
});

/** turn_text.detail as written by the episode writer; a damaged value reads as no detail rather than failing the episode. */
function parseTurnDetail(text: string | null): Pick<TurnDetail, 'reasoning' | 'message' | 'tool_calls' | 'notes' | 'timestamp'> {
  const none = { reasoning: null, message: null, tool_calls: [], notes: [], timestamp: null };
  if (!text) return none;
  const parsed = TurnDetailExtra.safeParse((() => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return null;
    }
  })());
  if (!parsed.success) return none;
  const d = parsed.data;
  return {
    reasoning: d.reasoning ?? null, message: d.message ?? null, tool_calls: d.tool_calls ?? [], notes: d.notes ?? [], timestamp: d.timestamp ?? null,
  };
}

