/**
 * The policy picker's form logic: the presets offered, checking a free-typed spec as the user types
 * (DESIGN §7 / issue 7 spec strings), and the list of chosen specs. The core validates again when it
 * replays; checking here is for an inline message that names what is wrong before anything is sent.
 */

export interface PolicyPreset {
  spec: string;
  label: string;
  /** One line on what the policy does, shown as the preset's tooltip. */
  help: string;
  /** Needs ŝ from an estimator to choose (argmax, cost-aware…); without one the core cannot replay it. */
  needsEstimator: boolean;
}

export const POLICY_PRESETS: readonly PolicyPreset[] = [
  { spec: 'logged', label: 'Logged', help: 'The choices the log recorded (the baseline every other policy is compared with).', needsEstimator: false },
  { spec: 'argmax', label: 'Argmax ŝ', help: 'MTRouter: the model with the highest estimated outcome ŝ at each turn.', needsEstimator: true },
  { spec: 'cost-aware:1', label: 'Cost-aware λ=1', help: 'argmax of ŝ − λ·ĉ: trades estimated outcome against estimated cost.', needsEstimator: true },
  { spec: 'mode:low', label: 'Budget mode low', help: 'CoRL budget mode: a small per-query budget, experts used sparingly.', needsEstimator: true },
  { spec: 'mode:high', label: 'Budget mode high', help: 'CoRL budget mode: a generous per-query budget.', needsEstimator: true },
  { spec: 'cheapest', label: 'Cheapest', help: 'Always the cheapest model of the pool.', needsEstimator: false },
  { spec: 'random:1', label: 'Random (seed 1)', help: 'A uniformly random candidate per turn, seeded.', needsEstimator: false },
];

export type SpecCheck =
  | { ok: true; spec: string; kind: PolicyKind; needsEstimator: boolean }
  | { ok: false; message: string };

export type PolicyKind = 'logged' | 'argmax' | 'cost-aware' | 'budget' | 'usage' | 'mode' | 'fixed' | 'cheapest' | 'random';

const NO_ARGUMENT = new Set<PolicyKind>(['logged', 'argmax', 'cheapest']);
const KINDS: readonly PolicyKind[] = ['logged', 'argmax', 'cost-aware', 'budget', 'usage', 'mode', 'fixed', 'cheapest', 'random'];
const NUMBER = /^(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i;

export const SPEC_SYNTAX =
  'logged · argmax · cost-aware:λ · budget:USD · usage:MODEL=ρ,… · mode:low|medium|high · fixed:MODEL · cheapest · random:SEED';

function isKind(text: string): text is PolicyKind {
  return (KINDS as readonly string[]).includes(text);
}

function bad(message: string): SpecCheck {
  return { ok: false, message };
}

/**
 * Checks one spec string against the grammar and the models this database knows (`fixed:` and `usage:`
 * name models). Returns the spec normalised (trimmed, kind lower-cased) or a message saying what is wrong.
 */
export function checkPolicySpec(text: string, models: readonly string[]): SpecCheck {
  const spec = text.trim();
  if (spec === '') return bad('Type a policy, e.g. argmax or cost-aware:0.5.');
  if (spec.length > 500) return bad('That spec is too long (500 characters at most).');
  const colon = spec.indexOf(':');
  const head = (colon === -1 ? spec : spec.slice(0, colon)).toLowerCase();
  const arg = colon === -1 ? null : spec.slice(colon + 1).trim();
  if (!isKind(head)) return bad(`Unknown policy “${head}”. Known: ${SPEC_SYNTAX}.`);
  const kind = head;
  const needsEstimator = kind === 'argmax' || kind === 'cost-aware' || kind === 'budget' || kind === 'usage' || kind === 'mode';
  const ok = (argument: string | null): SpecCheck => ({ ok: true, spec: argument === null ? kind : `${kind}:${argument}`, kind, needsEstimator });
  if (NO_ARGUMENT.has(kind)) return arg === null ? ok(null) : bad(`${kind} takes no argument (remove “:${arg}”).`);
  if (arg === null || arg === '') return bad(`${kind} needs an argument: ${syntaxOf(kind)}.`);
  switch (kind) {
    case 'cost-aware': {
      if (!NUMBER.test(arg)) return bad(`λ must be a number ≥ 0 (cost-aware:0.5), not “${arg}”.`);
      return ok(arg);
    }
    case 'budget': {
      const usd = NUMBER.test(arg.replace(/^\$/, '')) ? Number(arg.replace(/^\$/, '')) : NaN;
      if (!(usd > 0)) return bad(`The budget must be a number of dollars > 0 per episode (budget:0.5), not “${arg}”.`);
      return ok(String(usd));
    }
    case 'mode': {
      const mode = arg.toLowerCase();
      if (mode !== 'low' && mode !== 'medium' && mode !== 'high') return bad(`The mode is low, medium or high, not “${arg}”.`);
      return ok(mode);
    }
    case 'fixed': {
      if (!models.includes(arg)) return bad(`No model “${arg}” in this database${suggest(arg, models)}.`);
      return ok(arg);
    }
    case 'random': {
      if (!/^\d{1,9}$/.test(arg)) return bad(`The seed is a whole number ≥ 0 (random:7), not “${arg}”.`);
      return ok(String(Number(arg)));
    }
    case 'usage':
      return checkUsage(arg, models, ok);
  }
  return bad(`Unknown policy “${kind}”.`);
}

function checkUsage(arg: string, models: readonly string[], ok: (argument: string) => SpecCheck): SpecCheck {
  const seen = new Set<string>();
  const parts: string[] = [];
  let total = 0;
  for (const raw of arg.split(',')) {
    const item = raw.trim();
    const eq = item.lastIndexOf('=');
    if (eq <= 0) return bad(`Each usage target is MODEL=ρ (usage:gpt-5=0.2,kimi-k2=0.5), not “${item}”.`);
    const model = item.slice(0, eq).trim();
    const rhoText = item.slice(eq + 1).trim();
    const rho = NUMBER.test(rhoText) ? Number(rhoText) : NaN;
    if (!models.includes(model)) return bad(`No model “${model}” in this database${suggest(model, models)}.`);
    if (!(rho >= 0 && rho <= 1)) return bad(`ρ for ${model} must be a share between 0 and 1, not “${rhoText}”.`);
    if (seen.has(model)) return bad(`${model} is named twice.`);
    seen.add(model);
    total += rho;
    parts.push(`${model}=${rhoText}`);
  }
  if (total > 1 + 1e-9) return bad(`The target shares add up to ${total.toFixed(2)}; they can add up to 1 at most.`);
  return ok(parts.join(','));
}

function syntaxOf(kind: PolicyKind): string {
  switch (kind) {
    case 'cost-aware':
      return 'cost-aware:λ, e.g. cost-aware:0.5';
    case 'budget':
      return 'budget:USD per episode, e.g. budget:0.2';
    case 'usage':
      return 'usage:MODEL=ρ,…, e.g. usage:gpt-5=0.2';
    case 'mode':
      return 'mode:low, mode:medium or mode:high';
    case 'fixed':
      return 'fixed:MODEL, e.g. fixed:gpt-5';
    case 'random':
      return 'random:SEED, e.g. random:1';
    default:
      return kind;
  }
}

/** ", did you mean X?" for the known model closest by case-insensitive prefix or substring, else a short list. */
function suggest(name: string, models: readonly string[]): string {
  const lower = name.toLowerCase();
  const hit = models.find((m) => m.toLowerCase() === lower) ?? models.find((m) => m.toLowerCase().includes(lower) || lower.includes(m.toLowerCase()));
  if (hit) return ` — did you mean ${hit}?`;
  if (models.length === 0) return '';
  const shown = models.slice(0, 4).join(', ');
  return ` (known: ${shown}${models.length > 4 ? ', …' : ''})`;
}

/** Adds a checked spec to the chosen list (no duplicates, at most `max`); returns the list unchanged otherwise. */
export function addSpec(chosen: readonly string[], spec: string, max = 8): string[] {
  if (chosen.includes(spec) || chosen.length >= max) return [...chosen];
  return [...chosen, spec];
}
