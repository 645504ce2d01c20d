import { describe, expect, it } from 'vitest';
import type { AnalysisRequest, AnalysisResponse } from '../../../shared/analysisResults.ts';
import { buildRequest, requestKey, ResponseMemo } from './analysisRequest.ts';

describe('building a request from the page', () => {
  it('names the selected runs (sorted) or none for every run', () => {
    expect(buildRequest('usage-by-turn', ['b', 'a'], {})).toEqual({ id: 'usage-by-turn', runs: ['a', 'b'] });
    expect(buildRequest('usage-by-turn', [], {})).toEqual({ id: 'usage-by-turn' });
  });

  it('asks every figure to draw the chosen runs of the selection, and keys the answer by them', () => {
    expect(buildRequest('switch-cost', ['c', 'a', 'b'], {}, { draw: ['c', 'z', 'a'] })).toEqual({ id: 'switch-cost', runs: ['a', 'b', 'c'], draw: ['a', 'c'] });
    expect(buildRequest('pareto', [], {}, { draw: ['z'] })).toEqual({ id: 'pareto', draw: ['z'] });
    expect(buildRequest('embeddings', ['a'], {}, { draw: ['a'] })).toEqual({ id: 'embeddings', runs: ['a'] });
    expect(buildRequest('switch-cost', ['a'], {}, { draw: ['b'] })).toEqual({ id: 'switch-cost', runs: ['a'] });
    const key = (draw: string[]) => requestKey(buildRequest('pareto', ['a', 'b'], {}, { draw }) as AnalysisRequest);
    expect(key(['a'])).not.toBe(key(['b']));
  });

  it('passes each control only to the analysis that uses it', () => {
    const params = { minN: 10, reference: 'a', rho: { 'gpt-5': 0.2, 'deepseek-v3.2': 0.5 } };
    expect(buildRequest('lift', ['a'], params)).toEqual({ id: 'lift', runs: ['a'], minN: 10 });
    expect(buildRequest('lift', ['a'], { minN: 30 })).toEqual({ id: 'lift', runs: ['a'] });
    expect(buildRequest('pareto', ['a', 'b'], params)).toEqual({ id: 'pareto', runs: ['a', 'b'], reference: 'a' });
    expect(buildRequest('pareto', ['b'], params)).toEqual({ id: 'pareto', runs: ['b'] }); // reference not among the runs
    expect(Object.keys(buildRequest('usage-ratio', [], params)?.rho ?? {})).toEqual(['deepseek-v3.2', 'gpt-5']);
  });

  it('passes the estimator, bins, colouring and sample to calibration and embeddings, defaults left out', () => {
    const params = { estimator: 3, bins: 20, color: 'outcome' as const, sample: 500, minN: 5 };
    expect(buildRequest('calibration', [], params)).toEqual({ id: 'calibration', estimator: 3, bins: 20 });
    expect(buildRequest('embeddings', ['a'], params)).toEqual({ id: 'embeddings', runs: ['a'], estimator: 3, color: 'outcome', sample: 500 });
    expect(buildRequest('embeddings', [], { color: 'model', sample: 1000, bins: 10 })).toEqual({ id: 'embeddings' });
    expect(buildRequest('calibration', [], { bins: 10 })).toEqual({ id: 'calibration' });
    const keys = [{ bins: 5 }, { bins: 6 }, { estimator: 1 }, { estimator: 2 }].map((p) => requestKey(buildRequest('calibration', [], p) as AnalysisRequest));
    expect(new Set(keys).size).toBe(4);
  });

  it('asks an analysis of one episode of that episode’s run, and targets nothing until one is picked', () => {
    const episode = { ext_id: 'boil_0_run1', run: 'sw-router-demo' };
    expect(buildRequest('targets', ['x', 'y'], {})).toBeNull();
    expect(buildRequest('targets', ['x'], { episode })).toEqual({ id: 'targets', runs: ['sw-router-demo'], episode: 'boil_0_run1' });
    expect(buildRequest('plan-dag', ['x'], { episode })).toEqual({ id: 'plan-dag', runs: ['x'] });
    expect(buildRequest('plan-dag', ['x'], { episode }, { episode: true })).toEqual({ id: 'plan-dag', runs: ['sw-router-demo'], episode: 'boil_0_run1' });
  });

  it('gives equal requests equal keys', () => {
    const a = buildRequest('usage-ratio', ['b', 'a'], { rho: { y: 0.1, x: 0.2 } });
    const b = buildRequest('usage-ratio', ['a', 'b'], { rho: { x: 0.2, y: 0.1 } });
    expect(a && b && requestKey(a)).toBe(b && requestKey(b));
    expect(requestKey({ id: 'lift', minN: 5 })).not.toBe(requestKey({ id: 'lift', minN: 6 }));
  });
});

describe('the memo of answers', () => {
  const answer = (request: AnalysisRequest): AnalysisResponse => ({ request: { ...request, id: 'pareto' }, result: { reference: null, points: [] } });

  it('asks the core once per request, keeps the most recently used, and forgets failures', async () => {
    const asked: string[] = [];
    let fail = true;
    const memo = new ResponseMemo(async (request) => {
      asked.push(requestKey(request));
      if (request.reference === 'bad' && fail) throw new Error('core error');
      return answer(request);
    }, 2);
    const a: AnalysisRequest = { id: 'pareto', runs: ['a'] };
    const b: AnalysisRequest = { id: 'pareto', runs: ['b'] };
    const c: AnalysisRequest = { id: 'pareto', runs: ['c'] };
    await memo.get(a);
    await memo.get({ id: 'pareto', runs: ['a'] });
    expect(asked).toHaveLength(1);
    expect(memo.peek(a)?.request.runs).toEqual(['a']);
    await memo.get(b);
    await memo.get(a); // a is now the most recent
    await memo.get(c); // evicts b
    expect(memo.peek(b)).toBeUndefined();
    await memo.get(a);
    expect(asked).toHaveLength(3);

    await expect(memo.get({ id: 'pareto', reference: 'bad' })).rejects.toThrow('core error');
    fail = false;
    await memo.get({ id: 'pareto', reference: 'bad' });
    expect(asked).toHaveLength(5);

    memo.clear();
    await memo.get(a);
    expect(asked).toHaveLength(6);
  });
});
