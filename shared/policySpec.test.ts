import { describe, expect, it } from 'vitest';
import { formatPolicySpec, parsePolicySpec, PolicySpecError } from './policySpec.ts';

describe('policy specs', () => {
  it('parses every kind and prints it back the same way', () => {
    const specs = ['logged', 'argmax', 'cost-aware:12.5', 'budget:0.05', 'usage:gpt-5=0.25,kimi-k2=0.5@0.125', 'mode:medium', 'fixed:openai/gpt-4o:free', 'cheapest', 'random:42'];
    for (const s of specs) expect(formatPolicySpec(parsePolicySpec(s))).toBe(s);
    expect(parsePolicySpec('usage:gpt-5=0.25,kimi-k2=0.5@0.125')).toEqual({
      kind: 'usage',
      constraints: [{ model: 'gpt-5', rho: 0.25, xi: null }, { model: 'kimi-k2', rho: 0.5, xi: 0.125 }],
    });
    expect(parsePolicySpec('fixed:openai/gpt-4o:free')).toEqual({ kind: 'fixed', model: 'openai/gpt-4o:free' });
  });

  it('says which spec is wrong and why', () => {
    const bad: [string, RegExp][] = [
      ['', /empty/],
      ['argmx', /unknown policy "argmx" \(expected one of logged, argmax/],
      ['argmax:3', /argmax takes no argument/],
      ['cost-aware:', /missing argument \(expected cost-aware:LAMBDA\)/],
      ['cost-aware:-1', /LAMBDA must be a number ≥ 0, got "-1"/],
      ['budget:0', /USD must be a number > 0/],
      ['budget:abc', /USD must be a number > 0, got "abc"/],
      ['mode:huge', /mode must be low, medium or high, got "huge"/],
      ['random:1.5', /SEED must be a whole number/],
      ['usage:gpt-5', /"gpt-5" is not MODEL=RHO/],
      ['usage:gpt-5=1.5', /RHO of gpt-5 must be a number from 0 to 1/],
      ['usage:gpt-5=0.2,gpt-5=0.3', /gpt-5 is listed twice/],
      ['usage:gpt-5=0.2@-1', /XI of gpt-5 must be a number ≥ 0/],
    ];
    for (const [spec] of bad) expect(() => parsePolicySpec(spec), spec).toThrow(PolicySpecError);
    for (const [spec, message] of bad) expect(() => parsePolicySpec(spec), spec).toThrow(message);
  });
});
