import { describe, expect, it } from 'vitest';
import { addSpec, checkPolicySpec, POLICY_PRESETS } from './policyForm.ts';

const MODELS = ['gpt-5', 'kimi-k2', 'deepseek-v3.2'];

const spec = (text: string) => {
  const r = checkPolicySpec(text, MODELS);
  return r.ok ? r.spec : `ERR ${r.message}`;
};

describe('checkPolicySpec', () => {
  it('accepts every spec form of issue 7 and normalises it', () => {
    expect(spec(' logged ')).toBe('logged');
    expect(spec('ARGMAX')).toBe('argmax');
    expect(spec('cost-aware:0.5')).toBe('cost-aware:0.5');
    expect(spec('cost-aware:.25')).toBe('cost-aware:.25');
    expect(spec('budget:$0.20')).toBe('budget:0.2');
    expect(spec('usage:gpt-5=0.2, kimi-k2=0.5')).toBe('usage:gpt-5=0.2,kimi-k2=0.5');
    expect(spec('mode:Medium')).toBe('mode:medium');
    expect(spec('fixed:deepseek-v3.2')).toBe('fixed:deepseek-v3.2');
    expect(spec('cheapest')).toBe('cheapest');
    expect(spec('random:007')).toBe('random:7');
  });

  it('says what is wrong with a bad spec', () => {
    expect(spec('')).toMatch(/Type a policy/);
    expect(spec('greedy')).toMatch(/Unknown policy “greedy”/);
    expect(spec('argmax:2')).toMatch(/argmax takes no argument/);
    expect(spec('cost-aware')).toMatch(/needs an argument: cost-aware:λ/);
    expect(spec('cost-aware:-1')).toMatch(/λ must be a number ≥ 0/);
    expect(spec('budget:0')).toMatch(/budget must be .* > 0/);
    expect(spec('mode:extreme')).toMatch(/low, medium or high, not “extreme”/);
    expect(spec('fixed:GPT-5')).toMatch(/No model “GPT-5” .* did you mean gpt-5\?/);
    expect(spec('fixed:claude')).toMatch(/No model “claude” in this database \(known: gpt-5, kimi-k2, deepseek-v3.2\)/);
    expect(spec('random:x')).toMatch(/seed is a whole number/);
    expect(spec('usage:gpt-5')).toMatch(/MODEL=ρ/);
    expect(spec('usage:gpt-5=1.5')).toMatch(/between 0 and 1, not “1.5”/);
    expect(spec('usage:gpt-5=0.2,gpt-5=0.1')).toMatch(/named twice/);
    expect(spec('usage:gpt-5=0.7,kimi-k2=0.6')).toMatch(/add up to 1.30/);
  });

  it('every preset is a valid spec', () => {
    for (const p of POLICY_PRESETS) expect(spec(p.spec)).toBe(p.spec);
  });
});

describe('addSpec', () => {
  it('keeps the list free of duplicates and bounded', () => {
    expect(addSpec(['logged'], 'argmax')).toEqual(['logged', 'argmax']);
    expect(addSpec(['logged', 'argmax'], 'argmax')).toEqual(['logged', 'argmax']);
    expect(addSpec(['a', 'b'], 'c', 2)).toEqual(['a', 'b']);
  });
});
