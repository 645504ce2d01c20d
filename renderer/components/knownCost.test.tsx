// A cost with calls of unknown cost (issue 35 item 7): the known part as a lower bound with the calls it leaves out,
// "—" when nothing of it is known (never "≥ $0"), the count in the tooltip alone in a narrow column.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { KnownCost } from './figures.tsx';

const text = (html: string) => html.replace(/<[^>]+>/g, '');

describe('KnownCost', () => {
  it('reads "≥ $25.61 (3 calls unpriced)", marked unknown, the tooltip saying what is left out', () => {
    const html = renderToStaticMarkup(<KnownCost known={25.61} unpriced={3} />);
    expect(text(html)).toBe('≥ $25.61 (3 calls unpriced)');
    expect(html).toContain('data-unknown="true"');
    expect(html).toContain('title="At least $25.61: 3 calls unpriced (no cost in the log and no price known for the model), left out of the sum"');
  });

  it('says one call, and keeps the count for the tooltip when short', () => {
    expect(text(renderToStaticMarkup(<KnownCost known={0.5} unpriced={1} />))).toBe('≥ $0.500 (1 call unpriced)');
    const short = renderToStaticMarkup(<KnownCost known={0.5} unpriced={1} short />);
    expect(text(short)).toBe('≥ $0.500');
    expect(short).toContain('1 call unpriced');
  });

  it('is unknown, not "≥ $0", when no call of it was priced', () => {
    const html = renderToStaticMarkup(<KnownCost known={0} unpriced={12} />);
    expect(text(html)).toBe('— (12 calls unpriced)');
    expect(html).toContain('title="Unknown: 12 calls unpriced (no cost in the log and no price known for the model)"');
  });
});
