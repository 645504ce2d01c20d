// The ρ control (usage-ratio) keys its targets by model names, which are log text (issue 38 item 4).
import { describe, expect, it } from 'vitest';
import { AnalysisRequest } from '../../../shared/analysisResults.ts';
import { rhoWith } from './AnalysisControls.tsx';
import { buildRequest } from './analysisRequest.ts';

describe('ρ targets set in the window', () => {
  it('a model named __proto__, constructor or toString gets its target, into a valid request', () => {
    let rho: Record<string, number> | undefined;
    rho = rhoWith(rho, '__proto__', 0.5);
    rho = rhoWith(rho, 'constructor', 0.25);
    expect(Object.keys(rho)).toEqual(['__proto__', 'constructor']);
    expect(Object.hasOwn(rho, 'toString')).toBe(false);
    rho = rhoWith(rho, 'toString', 0.1);
    rho = rhoWith(rho, 'constructor', undefined);
    const request = buildRequest('usage-ratio', [], { rho });
    expect(Object.entries(request?.rho ?? {})).toEqual([['__proto__', 0.5], ['toString', 0.1]]);
    // What the core receives: the request as JSON, checked with the contract's schema.
    const received = AnalysisRequest.parse(JSON.parse(JSON.stringify(request)));
    expect(Object.entries(received.rho ?? {})).toEqual([['__proto__', 0.5], ['toString', 0.1]]);
  });
});
