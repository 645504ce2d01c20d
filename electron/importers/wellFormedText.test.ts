import { describe, expect, it } from 'vitest';
import { wellFormed } from '../db/episodeWriter.ts';
import { parseJsonLine } from './lineReader.ts';
import { vouchedWellFormed } from './wellFormedText.ts';

const parsed = (text: string): unknown => parseJsonLine('f.jsonl', 1, text);

describe('values vouched for as well-formed', () => {
  it('vouches for a value parsed from text without a \\u escape, and for no other', () => {
    expect(vouchedWellFormed(parsed('{"a":["é 🙂",{"b":"x"}]}'))).toBe(true);
    // An escape may make a lone surrogate, so it is walked; so is text that already holds one.
    expect(vouchedWellFormed(parsed('{"a":"\\ud800"}'))).toBe(false);
    expect(vouchedWellFormed(parsed('{"a":"\\u00e9"}'))).toBe(false);
    expect(vouchedWellFormed(parsed(`{"a":"${String.fromCharCode(0xdc00)}"}`))).toBe(false);
    expect(vouchedWellFormed(parsed('"text"'))).toBe(false);
    expect(vouchedWellFormed({ a: 'made here' })).toBe(false);
  });

  it('still repairs lone surrogates in a value that was not vouched for', () => {
    const v = parsed('{"a":["ok","\\udfff"],"\\ud800k":1}');
    const { value, repaired } = wellFormed(v);
    expect(repaired).toBe(2);
    expect(value).toEqual({ a: ['ok', '\ufffd'], '\ufffdk': 1 });
    const clean = parsed('{"a":["ok"]}');
    expect(wellFormed(clean)).toEqual({ value: clean, repaired: 0 });
  });
});
