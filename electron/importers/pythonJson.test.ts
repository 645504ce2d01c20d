import { describe, expect, it } from 'vitest';
import { pythonJsonText } from './pythonJson.ts';

const parse = (text: string): unknown => JSON.parse(pythonJsonText(text));

describe('Python json.dump non-finite floats', () => {
  it('reads the three words where a value stands', () => {
    expect(parse('{"q": [0.5, -Infinity, Infinity, NaN], "s": NaN}')).toEqual({ q: [0.5, -Infinity, Infinity, null], s: null });
    expect(parse('[\n  -Infinity,\n  NaN\n]')).toEqual([-Infinity, null]);
  });

  it('leaves strings, and text without the words, as they are', () => {
    const plain = '{"a": 1}';
    expect(pythonJsonText(plain)).toBe(plain);
    expect(parse('{"t": "NaN, Infinity: -Infinity [NaN]", "x": "\\"NaN"}')).toEqual({ t: 'NaN, Infinity: -Infinity [NaN]', x: '"NaN' });
  });

  it('keeps other words invalid, on their own line', () => {
    for (const bad of ['{"a": NaNx}', '{"a": -NaN}', '{"a": infinity}', '{"a": Infinity1}', 'NaN']) {
      expect(() => parse(bad), bad).toThrow(SyntaxError);
    }
    const text = '{\n  "a": 1,\n  "b": [0, -Infinityy]\n}';
    expect(pythonJsonText(text).split('\n')).toHaveLength(text.split('\n').length);
  });
});
