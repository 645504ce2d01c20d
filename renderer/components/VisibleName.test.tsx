// Invisible characters in names show in the window (issue 16 item 7): `gpt\u200b-5` must not look like `gpt-5`.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { ModelChip, ModelDot } from './ModelChip.tsx';
import { VisibleName, visibleTitle } from './VisibleName.tsx';

/** The text a person sees: the markup's text nodes, entities decoded. */
const seen = (html: string): string =>
  html.replace(/<[^>]*>/g, '').replaceAll('&quot;', '"').replaceAll('&#x27;', "'").replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');

describe('names with hidden characters in the window', () => {
  it('draws a zero-width space as a visible marker with its name in a tooltip', () => {
    const html = renderToStaticMarkup(<ModelChip name={'gpt\u200b-5'} />);
    expect(html).toContain('<span class="hidden-char" title="U+200B ZERO WIDTH SPACE" aria-label="U+200B ZERO WIDTH SPACE">\\u200b</span>');
    expect(html).toContain('title="gpt\\u200b-5 (contains U+200B ZERO WIDTH SPACE)"');
    expect(seen(html)).toBe('gpt\\u200b-5');
  });

  it('makes look-alike models look different, and plain names unchanged', () => {
    const plain = renderToStaticMarkup(<ModelChip name="gpt-5" />);
    const twin = renderToStaticMarkup(<ModelChip name={'gpt\u200b-5'} />);
    expect(seen(plain)).toBe('gpt-5');
    // What a person sees: the drawn text less the characters that take no space.
    expect(seen(twin).replace(/\p{Default_Ignorable_Code_Point}/gu, '')).not.toBe(seen(plain));
    expect(plain).not.toContain('hidden-char');
    expect(plain).toContain('title="gpt-5"');
  });

  it('shows terminal commands and bidi overrides as escapes, as the CLI does', () => {
    const name = 'run\u001b]0;title\u0007\u202eevil';
    const html = renderToStaticMarkup(<VisibleName name={name} />);
    expect(seen(html)).toBe('run\\u001b]0;title\\u0007\\u202eevil');
    expect(html).toContain('title="U+202E RIGHT-TO-LEFT OVERRIDE"');
    // eslint-disable-next-line no-control-regex -- no control character may be drawn
    expect(html).not.toMatch(/[\u0000-\u001f\u202e]/);
    // data-model keeps the exact name (a key for code, never shown); what is shown carries no control.
    // eslint-disable-next-line no-control-regex -- no control character may be drawn
    expect(renderToStaticMarkup(<ModelDot name={name} />).replace(/ data-model="[^"]*"/, '')).not.toMatch(/[\u0000-\u001f\u202e]/);
    expect(visibleTitle(name)).toBe('run\\u001b]0;title\\u0007\\u202eevil (contains U+001B ESCAPE, U+0007 BELL, U+202E RIGHT-TO-LEFT OVERRIDE)');
  });
});
