import { describe, expect, it } from 'vitest';
import { sniffJsonHead } from './jsonHead.ts';

describe('sniffJsonHead', () => {
  it('top-level keys and short string values, skipping nested ones', () => {
    const head = sniffJsonHead('\uFEFF {"info": {"messages": [1], "x": "y"}, "messages": [{"role": "a\\"b"}], "fmt": "v\\u0031", "n": 3}');
    expect(head).toEqual({
      container: 'object',
      keys: ['info', 'messages', 'fmt', 'n'],
      strings: new Map([['fmt', 'v1']]),
      complete: true,
    });
  });

  it('a head cut inside a value keeps what it saw', () => {
    const head = sniffJsonHead('{"a": "b", "c": {"d": "unterminated');
    expect(head.keys).toEqual(['a', 'c']);
    expect(head.strings.get('a')).toBe('b');
    expect(head.complete).toBe(false);
  });

  it('the first element of a top-level array', () => {
    const head = sniffJsonHead('[\n  {"role": "system", "content": "x"},\n  {"other": 1}\n]');
    expect(head.container).toBe('array');
    expect(head.keys).toEqual(['role', 'content']);
    expect(head.strings.get('role')).toBe('system');
    expect(sniffJsonHead('[1, 2]').keys).toEqual([]);
  });

  it('long values are not kept; non-JSON gives nothing', () => {
    expect(sniffJsonHead(`{"a": "${'x'.repeat(301)}"}`).strings.size).toBe(0);
    expect(sniffJsonHead('hello').container).toBeNull();
    expect(sniffJsonHead('').container).toBeNull();
  });
});
