import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MARKDOWN_MAX_CHARS, plainTextReason } from './markdownBudget.ts';

const sample = (path: string) => readFileSync(fileURLToPath(new URL(`../../fixtures/samples/${path}`, import.meta.url)), 'utf8');

/** Every string of 40 characters or more in a JSON Lines log: messages, reasoning, tool output. */
function stringsOf(jsonl: string): string[] {
  const out: string[] = [];
  const visit = (v: unknown): void => {
    if (typeof v === 'string') {
      if (v.length >= 40) out.push(v);
    } else if (Array.isArray(v)) v.forEach(visit);
    else if (v && typeof v === 'object') Object.values(v).forEach(visit);
  };
  for (const line of jsonl.split('\n')) if (line.trim()) visit(JSON.parse(line));
  return out;
}

describe('plainTextReason: one scan before parsing', () => {
  it('the issue 38 payloads are refused before the parser sees them', () => {
    expect(plainTextReason('>'.repeat(3000))).toBe('too-deep');
    expect(plainTextReason('- '.repeat(1000))).toBe('too-deep');
    expect(plainTextReason('*a'.repeat(49_000))).toBe('too-many-marks');
  });

  it('nesting across lines, emphasis nested in emphasis and bracket piles are refused too', () => {
    // A list 2 columns deeper on every line: 300 levels in 90 kB parsed in 3 s.
    const staircase = Array.from({ length: 300 }, (_, i) => `${'  '.repeat(i)}- a`).join('\n');
    expect(plainTextReason(staircase)).toBe('too-deep');
    expect(plainTextReason(`${'> - 1. '.repeat(20)}a`)).toBe('too-deep');
    expect(plainTextReason(`${'*a **a '.repeat(500)}b${' a** a*'.repeat(500)}`)).toBe('too-many-marks');
    expect(plainTextReason(`${'['.repeat(30_000)}a${']'.repeat(30_000)}`)).toBe('too-many-marks');
    expect(plainTextReason('x'.repeat(MARKDOWN_MAX_CHARS + 1))).toBe('too-long');
  });

  it('ordinary markdown passes: headings, lists 4 deep, quotes, code, tables, snake_case, many paragraphs of bold', () => {
    const ordinary = [
      '# Plan',
      '',
      '- step one',
      '  - detail',
      '    - sub-detail',
      '      1. **deepest** item',
      '',
      '> a quote with *emphasis*',
      '',
      '```python',
      'def __init__(self, *args, **kwargs):',
      '    self.some_long_name = kwargs["a_b_c"]',
      '```',
      '',
      '| a | b |',
      '|---|---|',
      '| 1 | 2 |',
    ].join('\n');
    expect(plainTextReason(ordinary)).toBeNull();
    // Marks are weighed per paragraph: 1,300 paragraphs of bold and links (94 kB) parse in 2 s.
    expect(plainTextReason('Some **bold** and a [link](http://x.invalid).\n\n'.repeat(1300))).toBeNull();
    expect(plainTextReason(`${'snake_case_name '.repeat(3000)}`)).toBeNull();
    expect(plainTextReason(`${'a * b '.repeat(3000)}`)).toBeNull();
  });

  it('no message, reasoning or tool output in the real Claude Code and Codex samples is refused', () => {
    const texts = [...stringsOf(sample('claude-code/vct-claude_code.jsonl')), ...stringsOf(sample('codex/vct-codex.jsonl'))];
    expect(texts.length).toBeGreaterThan(100);
    expect(texts.filter((t) => plainTextReason(t) !== null)).toEqual([]);
  });

  it('scans 100 kB in well under the time parsing would take', () => {
    const text = `${'- a **b** [c](d) _e_\n'.repeat(4700)}`;
    const t = performance.now();
    for (let i = 0; i < 10; i++) plainTextReason(text);
    expect((performance.now() - t) / 10).toBeLessThan(50);
  });
});
