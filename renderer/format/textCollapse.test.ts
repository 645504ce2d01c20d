import { describe, expect, it } from 'vitest';
import { countLines, cutMarkdown, cutPlain } from './textCollapse.ts';

const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line ${i}`).join('\n');

describe('countLines', () => {
  it('counts lines, a trailing newline ending the last one', () => {
    expect(countLines('')).toBe(0);
    expect(countLines('a')).toBe(1);
    expect(countLines('a\n')).toBe(1);
    expect(countLines('a\nb')).toBe(2);
    expect(countLines('a\n\nb\n')).toBe(3);
  });
});

describe('cutPlain', () => {
  it('leaves short text whole', () => {
    expect(cutPlain(numbered(24), 24, 3000)).toBeNull();
  });
  it('cuts after the last line that fits, and head + rest is the text exactly', () => {
    const text = numbered(120);
    const cut = cutPlain(text, 24, 3000);
    expect(cut?.head).toBe(`${numbered(24)}\n`);
    expect(cut?.rest.startsWith('line 24\n')).toBe(true);
    expect(`${cut?.head}${cut?.rest}`).toBe(text);
  });
  it('cuts a single huge line at the character limit', () => {
    const text = 'A'.repeat(10_000);
    const cut = cutPlain(text, 24, 3000);
    expect(cut?.head.length).toBe(3000);
    expect(cut?.rest.length).toBe(7000);
  });
  it('cuts many long lines by characters, still on a line boundary', () => {
    const text = Array.from({ length: 10 }, () => 'x'.repeat(999)).join('\n');
    const cut = cutPlain(text, 24, 3000);
    expect(cut?.head).toBe(`${'x'.repeat(999)}\n${'x'.repeat(999)}\n${'x'.repeat(999)}\n`);
  });
});

describe('cutMarkdown', () => {
  it('leaves short markdown whole', () => {
    expect(cutMarkdown('# a\n\ntext', 40)).toBeNull();
  });
  it('cuts at the last blank line outside code before the limit', () => {
    const paras = Array.from({ length: 30 }, (_, i) => `para ${i}`).join('\n\n');
    const cut = cutMarkdown(paras, 40);
    // 40 lines hold paragraphs 0..19 and the blank line after paragraph 19 (line index 39).
    expect(cut?.head.trimEnd().endsWith('para 19')).toBe(true);
    expect(cut?.rest.startsWith('para 20')).toBe(true);
  });
  it('closes a fence the cut falls in and reopens it with its language', () => {
    const text = `intro\n\n\`\`\`python\n${numbered(60)}\n\`\`\`\nafter`;
    const cut = cutMarkdown(text, 40);
    expect(cut?.head.endsWith('line 36\n```\n')).toBe(true);
    expect(cut?.rest.startsWith('```python\nline 37\n')).toBe(true);
  });
  it('does not take a blank line inside a fence as a place to cut', () => {
    const code = Array.from({ length: 50 }, (_, i) => (i % 5 === 4 ? '' : `x${i}`)).join('\n');
    const cut = cutMarkdown(`\`\`\`\n${code}\n\`\`\``, 40);
    expect(cut?.head.endsWith('\n```\n')).toBe(true);
    expect(cut?.rest.startsWith('```\n')).toBe(true);
  });
});
