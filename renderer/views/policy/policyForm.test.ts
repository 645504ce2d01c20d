import { describe, expect, it } from 'vitest';
import { addSpec, checkPolicySpec, policyHelp, POLICY_PRESETS } from './policyForm.ts';

const MODELS = ['gpt-5', 'kimi-k2', 'deepseek-v3.2'];

const spec = (text: string) => {
  const r = checkPolicySpec(text, MODELS);
  return r.ok ? r.spec : `ERR ${r.message}`;
};

describe('checkPolicySpec', () => {
  it('accepts every spec form of issue 7 and gives its canonical spelling', () => {
    expect(spec(' logged ')).toBe('logged');
    expect(spec('cost-aware:0.50')).toBe('cost-aware:0.5');
    expect(spec('budget:0.20')).toBe('budget:0.2');
    expect(spec('usage:gpt-5=0.2, kimi-k2=0.5')).toBe('usage:gpt-5=0.2,kimi-k2=0.5');
    expect(spec('mode:medium')).toBe('mode:medium');
    expect(spec('fixed:deepseek-v3.2')).toBe('fixed:deepseek-v3.2');
    expect(spec('random:007')).toBe('random:7');
  });

  it('says what is wrong: the shared grammar first, then models this database does not have', () => {
    expect(spec('greedy')).toMatch(/unknown policy "greedy"/);
    expect(spec('argmax:2')).toMatch(/argmax takes no argument/);
    expect(spec('cost-aware:-1')).toMatch(/LAMBDA must be a number ≥ 0/);
    expect(spec('mode:extreme')).toMatch(/low, medium or high/);
    expect(spec('fixed:GPT-5')).toBe('ERR No model “GPT-5” in this database — did you mean gpt-5?');
    expect(spec('fixed:claude')).toBe('ERR No model “claude” in this database (known: gpt-5, kimi-k2, deepseek-v3.2).');
    expect(spec('usage:gpt-5=0.2,kimi=0.1')).toMatch(/No model “kimi” .* did you mean kimi-k2\?/);
  });

  it('knows which policies need ŝ', () => {
    expect(checkPolicySpec('argmax', MODELS)).toMatchObject({ ok: true, needsScores: true });
    expect(checkPolicySpec('cheapest', MODELS)).toMatchObject({ ok: true, needsScores: false });
  });

  it('every preset is a valid spec in canonical spelling, with a sentence of help', () => {
    for (const p of POLICY_PRESETS) {
      expect(spec(p.spec)).toBe(p.spec);
      expect(policyHelp(p.spec)).not.toBe(p.spec);
    }
  });
});

describe('addSpec', () => {
  it('keeps the list free of duplicates and bounded', () => {
    expect(addSpec(['logged'], 'argmax')).toEqual(['logged', 'argmax']);
    expect(addSpec(['logged', 'argmax'], 'argmax')).toEqual(['logged', 'argmax']);
    expect(addSpec(['a', 'b'], 'c', 2)).toEqual(['a', 'b']);
  });
});
