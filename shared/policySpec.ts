/**
 * Routing policies as data (DESIGN §7): the `--policy` spec strings, their parsed form, the canonical
 * spelling and a one-line description. Shared so the CLI, the services (which validate every spec at the
 * API boundary) and the policy-lab form parse and print specs the same way. Pure: no I/O.
 *
 *   logged                    the model the log chose
 *   argmax                    MTRouter: argmax_a ŝ(h_t, a)
 *   cost-aware:LAMBDA         argmax_a ŝ(h_t, a) − λ·ĉ(t, a), ĉ = estimated turn cost in USD (λ: score per dollar)
 *   budget:USD                argmax ŝ among models this episode's remaining budget can still afford
 *   usage:MODEL=RHO[@XI],...  critique controller (seed 002): argmax ŝ − ξ_k with usage ratio of k ≤ ρ_k; ξ_k fitted
 *                             on the replayed turns unless given after `@`
 *   mode:low|medium|high      CoRL (seed 003): `budget:` with the paper's per-query budget of that mode
 *   fixed:MODEL               always MODEL
 *   cheapest                  the model with the lowest estimated cost for the turn
 *   random:SEED               uniform over the turn's candidates, drawn from (SEED, episode, turn)
 */

/** CoRL App. A, multi-expert study: per-query cost budgets of the low / medium / high modes, in USD. */
export const MODE_BUDGET_USD = { low: 0.001, medium: 0.006, high: 1000 } as const;
export type BudgetMode = keyof typeof MODE_BUDGET_USD;

export interface UsageConstraint {
  model: string;
  /** Target usage ratio ρ_k in [0, 1]: the share of all turns routed to this model. */
  rho: number;
  /** Lagrange weight ξ_k ≥ 0 when the user fixed it; null = fitted so the ratio holds. */
  xi: number | null;
}

export type PolicySpec =
  | { kind: 'logged' }
  | { kind: 'argmax' }
  | { kind: 'cost-aware'; lambda: number }
  | { kind: 'budget'; usd: number }
  | { kind: 'usage'; constraints: UsageConstraint[] }
  | { kind: 'mode'; mode: BudgetMode }
  | { kind: 'fixed'; model: string }
  | { kind: 'cheapest' }
  | { kind: 'random'; seed: number };

export type PolicyKind = PolicySpec['kind'];

/** What a form needs to offer each kind: its syntax, a sentence, and whether it needs ŝ. */
export interface PolicyKindInfo {
  kind: PolicyKind;
  syntax: string;
  summary: string;
  /** Needs ŝ per turn and candidate (an estimator's estimates or the log's candidate scores). */
  needsScores: boolean;
}

export const POLICY_KINDS: readonly PolicyKindInfo[] = [
  { kind: 'logged', syntax: 'logged', summary: 'the model the log chose at each turn', needsScores: false },
  { kind: 'argmax', syntax: 'argmax', summary: 'MTRouter: the candidate with the highest ŝ', needsScores: true },
  { kind: 'cost-aware', syntax: 'cost-aware:LAMBDA', summary: 'highest ŝ − λ·(estimated turn cost in USD)', needsScores: true },
  {
    kind: 'budget',
    syntax: 'budget:USD',
    summary: 'highest ŝ among models the remaining episode budget can afford (keeping enough for the cheapest model on the remaining expected steps)',
    needsScores: true,
  },
  {
    kind: 'usage',
    syntax: 'usage:MODEL=RHO[@XI],...',
    summary: 'critique controller: highest ŝ − ξ_k, with Lagrange weights ξ_k fitted so each listed model gets at most ρ_k of the turns',
    needsScores: true,
  },
  { kind: 'mode', syntax: 'mode:low|medium|high', summary: 'CoRL budget mode: budget:USD with the per-query budget of the mode (0.001 / 0.006 / 1000)', needsScores: true },
  { kind: 'fixed', syntax: 'fixed:MODEL', summary: 'always the same model', needsScores: false },
  { kind: 'cheapest', syntax: 'cheapest', summary: 'the candidate with the lowest estimated turn cost', needsScores: false },
  { kind: 'random', syntax: 'random:SEED', summary: 'a uniformly random candidate, reproducible from the seed', needsScores: false },
];

/** A spec string that does not parse; the message names the spec and what is wrong with it. */
export class PolicySpecError extends Error {}

const MAX_SPEC = 500;

function numberArg(spec: string, raw: string, name: string, check: (x: number) => boolean, rule: string): number {
  const x = raw.trim() === '' ? Number.NaN : Number(raw);
  if (!Number.isFinite(x) || !check(x)) throw new PolicySpecError(`policy "${spec}": ${name} must be ${rule}, got "${raw}"`);
  return x;
}

export function parsePolicySpec(input: string): PolicySpec {
  const spec = input.trim();
  if (spec === '') throw new PolicySpecError('policy spec is empty (expected one of ' + POLICY_KINDS.map((k) => k.syntax).join(', ') + ')');
  if (spec.length > MAX_SPEC) throw new PolicySpecError(`policy spec is longer than ${MAX_SPEC} characters`);
  const colon = spec.indexOf(':');
  const head = colon < 0 ? spec : spec.slice(0, colon);
  const arg = colon < 0 ? null : spec.slice(colon + 1);
  const needArg = (syntax: string): string => {
    if (arg === null || arg.trim() === '') throw new PolicySpecError(`policy "${spec}": missing argument (expected ${syntax})`);
    return arg.trim();
  };
  const noArg = (): void => {
    if (arg !== null) throw new PolicySpecError(`policy "${spec}": ${head} takes no argument`);
  };
  switch (head) {
    case 'logged':
    case 'argmax':
    case 'cheapest':
      noArg();
      return { kind: head };
    case 'cost-aware':
      return { kind: 'cost-aware', lambda: numberArg(spec, needArg('cost-aware:LAMBDA'), 'LAMBDA', (x) => x >= 0, 'a number ≥ 0') };
    case 'budget':
      return { kind: 'budget', usd: numberArg(spec, needArg('budget:USD'), 'USD', (x) => x > 0, 'a number > 0') };
    case 'mode': {
      const mode = needArg('mode:low|medium|high');
      if (!Object.hasOwn(MODE_BUDGET_USD, mode)) throw new PolicySpecError(`policy "${spec}": mode must be low, medium or high, got "${mode}"`);
      return { kind: 'mode', mode: mode as BudgetMode };
    }
    case 'fixed':
      return { kind: 'fixed', model: needArg('fixed:MODEL') };
    case 'random':
      return { kind: 'random', seed: numberArg(spec, needArg('random:SEED'), 'SEED', (x) => Number.isSafeInteger(x), 'a whole number') };
    case 'usage':
      return { kind: 'usage', constraints: parseUsage(spec, needArg('usage:MODEL=RHO[@XI],...')) };
    default:
      throw new PolicySpecError(`policy "${spec}": unknown policy "${head}" (expected one of ${POLICY_KINDS.map((k) => k.syntax).join(', ')})`);
  }
}

function parseUsage(spec: string, arg: string): UsageConstraint[] {
  const out: UsageConstraint[] = [];
  for (const part of arg.split(',')) {
    const eq = part.lastIndexOf('=');
    if (eq <= 0) throw new PolicySpecError(`policy "${spec}": "${part}" is not MODEL=RHO`);
    const model = part.slice(0, eq).trim();
    const [rhoRaw, xiRaw, extra] = part.slice(eq + 1).split('@');
    if (extra !== undefined) throw new PolicySpecError(`policy "${spec}": "${part}" has more than one @`);
    const rho = numberArg(spec, rhoRaw ?? '', `RHO of ${model}`, (x) => x >= 0 && x <= 1, 'a number from 0 to 1');
    const xi = xiRaw === undefined ? null : numberArg(spec, xiRaw, `XI of ${model}`, (x) => x >= 0, 'a number ≥ 0');
    if (out.some((c) => c.model === model)) throw new PolicySpecError(`policy "${spec}": ${model} is listed twice`);
    out.push({ model, rho, xi });
  }
  return out;
}

/** The canonical spelling: parsing it gives the same spec back. */
export function formatPolicySpec(p: PolicySpec): string {
  switch (p.kind) {
    case 'logged':
    case 'argmax':
    case 'cheapest':
      return p.kind;
    case 'cost-aware':
      return `cost-aware:${p.lambda}`;
    case 'budget':
      return `budget:${p.usd}`;
    case 'mode':
      return `mode:${p.mode}`;
    case 'fixed':
      return `fixed:${p.model}`;
    case 'random':
      return `random:${p.seed}`;
    case 'usage':
      return `usage:${p.constraints.map((c) => `${c.model}=${c.rho}${c.xi === null ? '' : `@${c.xi}`}`).join(',')}`;
  }
}

/** A human label for tables and legends. */
export function describePolicy(p: PolicySpec): string {
  switch (p.kind) {
    case 'logged':
      return 'logged choices';
    case 'argmax':
      return 'argmax ŝ (MTRouter)';
    case 'cost-aware':
      return `ŝ − ${p.lambda}·cost`;
    case 'budget':
      return `budget $${p.usd} per episode`;
    case 'mode':
      return `CoRL ${p.mode} mode ($${MODE_BUDGET_USD[p.mode]} per query)`;
    case 'fixed':
      return `always ${p.model}`;
    case 'cheapest':
      return 'cheapest model';
    case 'random':
      return `uniform random (seed ${p.seed})`;
    case 'usage':
      return `usage ${p.constraints.map((c) => `${c.model} ≤ ${c.rho}`).join(', ')}`;
  }
}

/** Whether a policy needs ŝ for every turn and candidate. */
export function needsScores(p: PolicySpec): boolean {
  return POLICY_KINDS.find((k) => k.kind === p.kind)?.needsScores ?? false;
}
