import { calcPrice } from '@pydantic/genai-prices';
import { describe, expect, it } from 'vitest';
import { listPriceCall, listPriceOf } from './listPrices.ts';

describe('list prices from @pydantic/genai-prices', () => {
  it('prices cache reads and writes at their own prices (Claude Haiku 4.5: $1 in, $5 out, $0.10 read, $1.25 write)', () => {
    // 10,000 input tokens of which 6,000 cache reads and 3,000 cache writes, 1,000 output, by hand:
    // 1,000 × 1 + 6,000 × 0.1 + 3,000 × 1.25 + 1,000 × 5 = 1,000 + 600 + 3,750 + 5,000 = 10,350 µ$ per M → $0.01035
    expect(listPriceCall('claude-haiku-4-5-20251001', { in: 10_000, out: 1_000, cached: 6_000, cache_write: 3_000 })).toBeCloseTo(0.01035, 12);
  });

  it('follows tiered prices through the library (Gemini 3.1 Pro above 200k input tokens)', () => {
    const small = listPriceCall('gemini-3.1-pro-preview', { in: 100_000, out: 1_000 });
    const large = listPriceCall('gemini-3.1-pro-preview', { in: 300_000, out: 1_000 });
    expect(small).toBeCloseTo((100_000 * 2 + 1_000 * 12) / 1e6, 12);
    expect(large).toBeCloseTo((300_000 * 4 + 1_000 * 18) / 1e6, 12);
  });

  it('agrees with the library call by call, flat-priced and tiered', () => {
    for (const model of ['gpt-5', 'claude-opus-4-6', 'gemini-3-flash-preview', 'claude-sonnet-4.6']) {
      const usage = { input_tokens: 52_000, output_tokens: 900, cache_read_tokens: 30_000, cache_write_tokens: 2_000 };
      const want = calcPrice(usage, model)?.total_price;
      expect(listPriceCall(model, { in: 52_000, out: 900, cached: 30_000, cache_write: 2_000 }), model).toBeCloseTo(want as number, 12);
    }
  });

  it('prices one-hour cache writes at 2x base input, five-minute ones at 1.25x (Claude Opus 4.6: $5 in, $6.25 5m, $10 1h)', () => {
    // 3,000 writes of which 1,000 one-hour, 1,000 output, by hand: 2,000 × 6.25 + 1,000 × 10 + 1,000 × 25 = 47,500 µ$ per M
    const call = { in: 3_000, out: 1_000, cached: 0, cache_write: 3_000, cache_write_1h: 1_000 };
    expect(listPriceCall('claude-opus-4-6', call)).toBeCloseTo(0.0475, 12);
    // The library's own answer for the same usage (its 1h tokens are part of its cache writes).
    const usage = { input_tokens: 3_000, output_tokens: 1_000, cache_write_tokens: 3_000, cache_write_1h_tokens: 1_000 };
    expect(listPriceCall('claude-opus-4-6', call)).toBeCloseTo(calcPrice(usage, 'claude-opus-4-6')?.total_price as number, 12);
    // One-hour writes beyond all writes are counted as writes at most.
    expect(listPriceCall('claude-opus-4-6', { ...call, cache_write_1h: 9_000 })).toBeCloseTo((3_000 * 10 + 1_000 * 25) / 1e6, 12);
  });

  it('prices one-hour writes at 2x base input where the library has no one-hour price (Vertex), not at the 5m price', () => {
    // Claude 3.7 Sonnet on Google Vertex in genai-prices 0.1.8: $3 in, $3.75 cache write, no cache_write_1h_mtok.
    const model = 'google/claude-3-7-sonnet';
    const call = { in: 1_000, out: 0, cached: 0, cache_write: 1_000, cache_write_1h: 1_000 };
    expect(listPriceCall(model, { ...call, cache_write_1h: 0 })).toBeCloseTo((1_000 * 3.75) / 1e6, 12);
    expect(listPriceCall(model, call)).toBeCloseTo((1_000 * 6) / 1e6, 12);
  });

  it('knows provider-prefixed and dated spellings', () => {
    expect(listPriceOf('openrouter/anthropic/claude-3.5-sonnet')?.in_per_m).toBe(3);
    expect(listPriceOf('anthropic/claude-sonnet-4-20250514')?.out_per_m).toBe(15);
  });

  it('is unknown (null), never 0, for a model it does not know or a call without token counts', () => {
    expect(listPriceOf('aide-gpt-5')).toBeNull();
    expect(listPriceCall('aide-gpt-5', { in: 100, out: 10 })).toBeNull();
    expect(listPriceCall('gpt-5', { in: null, out: 10 })).toBeNull();
    expect(listPriceCall('gpt-5', { in: 100 })).toBeNull();
  });
});
