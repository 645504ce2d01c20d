/**
 * The policy picker's form logic: the presets offered, checking a free-typed spec as the user types, and
 * the list of chosen specs. Parsing is the shared parser's (shared/policySpec.ts, the one the core
 * validates with); the form adds what only it can say early: that a model named in the spec is not in this
 * database (the core would replay it as an unknown candidate).
 */
import { formatPolicySpec, needsScores, parsePolicySpec, POLICY_KINDS, PolicySpecError, type PolicySpec } from '../../../shared/policySpec.ts';

export interface PolicyPreset {
  spec: string;
  label: string;
}

export const POLICY_PRESETS: readonly PolicyPreset[] = [
  { spec: 'logged', label: 'Logged' },
  { spec: 'argmax', label: 'Argmax ŝ' },
  { spec: 'cost-aware:10', label: 'Cost-aware λ=10' },
  { spec: 'mode:low', label: 'Mode low' },
  { spec: 'mode:medium', label: 'Mode medium' },
  { spec: 'cheapest', label: 'Cheapest' },
  { spec: 'random:1', label: 'Random' },
];

/** The syntax line shown under the input. */
export const SPEC_SYNTAX = POLICY_KINDS.map((k) => k.syntax).join(' · ');

/** One sentence on what a spec does (the preset's tooltip, the chip's title). */
export function policyHelp(spec: string): string {
  try {
    const kind = parsePolicySpec(spec).kind;
    return POLICY_KINDS.find((k) => k.kind === kind)?.summary ?? spec;
  } catch {
    return spec;
  }
}

export type SpecCheck = { ok: true; spec: string; needsScores: boolean } | { ok: false; message: string };

function modelsOf(p: PolicySpec): string[] {
  if (p.kind === 'fixed') return [p.model];
  if (p.kind === 'usage') return p.constraints.map((c) => c.model);
  return [];
}

/** ", did you mean X?" for a near miss (case, or one name inside the other), else a few known names. */
function suggest(name: string, models: readonly string[]): string {
  const lower = name.toLowerCase();
  const hit = models.find((m) => m.toLowerCase() === lower) ?? models.find((m) => m.toLowerCase().includes(lower) || lower.includes(m.toLowerCase()));
  if (hit) return ` — did you mean ${hit}?`;
  if (models.length === 0) return '';
  return ` (known: ${models.slice(0, 4).join(', ')}${models.length > 4 ? ', …' : ''})`;
}

/**
 * Checks one spec string: the shared grammar, then the models it names against this database's models.
 * Returns the canonical spelling, or a message saying what is wrong.
 */
export function checkPolicySpec(text: string, models: readonly string[]): SpecCheck {
  let parsed: PolicySpec;
  try {
    parsed = parsePolicySpec(text);
  } catch (err) {
    if (err instanceof PolicySpecError) return { ok: false, message: err.message };
    throw err;
  }
  for (const model of modelsOf(parsed)) {
    if (!models.includes(model)) {
      const hint = suggest(model, models);
      return { ok: false, message: `No model “${model}” in this database${hint}${hint.endsWith('?') ? '' : '.'}` };
    }
  }
  return { ok: true, spec: formatPolicySpec(parsed), needsScores: needsScores(parsed) };
}

/** Adds a spec to the chosen list (no duplicates, at most `max`, the contract's limit). */
export function addSpec(chosen: readonly string[], spec: string, max = 20): string[] {
  if (chosen.includes(spec) || chosen.length >= max) return [...chosen];
  return [...chosen, spec];
}
