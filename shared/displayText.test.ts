import { describe, expect, it } from 'vitest';
import { toCsv } from './charts/csv.ts';
import { hiddenCharactersNote, visibleLines, visibleParts, visibleText } from './displayText.ts';

/** Every character that acts on a terminal or hides: none may survive `visibleText`. */
// eslint-disable-next-line no-control-regex, no-misleading-character-class -- matching control and invisible characters is the point
const ACTING = /[\u0000-\u001f\u007f-\u009f\u00a0\u00ad\u200b-\u200f\u2028-\u202f\u2060-\u2069\ufeff\ufe00-\ufe0f\ud800-\udfff]/u;

describe('visibleText', () => {
  it('shows terminal commands as their escapes, inert', () => {
    expect(visibleText('\u001b]0;owned\u0007run')).toBe('\\u001b]0;owned\\u0007run'); // OSC 0: window title
    expect(visibleText('\u001b[2J\u001b[Hx')).toBe('\\u001b[2J\\u001b[Hx'); // clear screen, cursor home
    expect(visibleText('\u001b]8;;https://evil.example\u001b\\click\u001b]8;;\u001b\\')).toBe(
      '\\u001b]8;;https://evil.example\\u001b\\click\\u001b]8;;\\u001b\\',
    ); // OSC 8 hyperlink
    expect(visibleText('\u009b31mred\u009d0;t\u009c')).toBe('\\u009b31mred\\u009d0;t\\u009c'); // C1 CSI, OSC, ST
    expect(visibleText('a\u007fb')).toBe('a\\u007fb');
  });

  it('escapes line breaks, tabs and carriage returns inside one value', () => {
    expect(visibleText('a\nb\tc\rd\u2028e\u0085f')).toBe('a\\nb\\tc\\rd\\u2028e\\u0085f');
  });

  it('shows bidi controls, zero-width and other invisible characters', () => {
    expect(visibleText('gpt\u200b-5')).toBe('gpt\\u200b-5');
    expect(visibleText('\u202eevil')).toBe('\\u202eevil');
    expect(visibleText('\u2066x\u2069\u200d\u2060\ufeff\u00ad\u3164\u00a0')).toBe('\\u2066x\\u2069\\u200d\\u2060\\ufeff\\u00ad\\u3164\\u00a0');
    expect(visibleText('tag\u{e0041}')).toBe('tag\\udb40\\udc41'); // tag characters (ASCII smuggling)
    expect(visibleText('lone \ud800 half')).toBe('lone \\ud800 half');
  });

  it('leaves ordinary text alone, the plain space, accents, symbols and emoji included', () => {
    for (const s of ['gpt-5', 'C:\\runs\\a b', 'ŝ − S̃ — “q” ×3 …', 'claude-opus-4.1 😀', 'naïve 日本語', '']) expect(visibleText(s)).toBe(s);
  });

  it('never lets an acting character through, over every BMP code point', () => {
    let all = '';
    for (let c = 0; c < 0x10000; c++) all += String.fromCharCode(c);
    expect(visibleText(all)).not.toMatch(ACTING);
    expect(visibleLines(all).replaceAll('\n', '')).not.toMatch(ACTING);
  });
});

describe('visibleLines', () => {
  it('keeps line feeds and escapes the rest', () => {
    expect(visibleLines('a\u001b[2J\nb\r\n')).toBe('a\\u001b[2J\nb\\r\n');
  });

  it('keeps a JSON document the same JSON, pretty-printed or not', () => {
    const value = { name: 'x\u001b]0;t\u0007\u009b\u202e\u200b\ud800\u{e0041}\n', list: ['gpt\u200b-5', 'a\\u200b'], n: -1.5 };
    for (const text of [JSON.stringify(value), JSON.stringify(value, null, 2)]) {
      const shown = visibleLines(text);
      expect(shown.replaceAll('\n', '')).not.toMatch(ACTING);
      expect(JSON.parse(shown)).toEqual(JSON.parse(text));
    }
  });
});

describe('the window\'s view of a name', () => {
  it('cuts a name into text and hidden characters, with their names', () => {
    expect(visibleParts('gpt-5')).toEqual([{ text: 'gpt-5' }]);
    expect(visibleParts('gpt\u200b-5')).toEqual([
      { text: 'gpt' },
      { hidden: '\u200b', escape: '\\u200b', description: 'U+200B ZERO WIDTH SPACE' },
      { text: '-5' },
    ]);
    expect(visibleParts('\u{e0041}')).toEqual([{ hidden: '\u{e0041}', escape: '\\udb40\\udc41', description: 'U+E0041' }]);
    expect(hiddenCharactersNote('gpt-5')).toBeNull();
    expect(hiddenCharactersNote('\u202eg\u200bp\u200b')).toBe('contains U+202E RIGHT-TO-LEFT OVERRIDE, U+200B ZERO WIDTH SPACE');
  });
});

describe('CSV cells', () => {
  it('carry escapes instead of control bytes, and stay valid CSV', () => {
    const csv = toCsv(['run', 'n'], [['\u001b]0;t\u0007a,b', 1], ['line\nbreak "q"', -2], ['=cmd\u200b', 3]]);
    expect(csv.replaceAll('\r\n', '')).not.toMatch(ACTING);
    expect(csv).toBe('run,n\r\n"\\u001b]0;t\\u0007a,b",1\r\n"line\\nbreak ""q""",-2\r\n\'=cmd\\u200b,3\r\n');
  });
});
