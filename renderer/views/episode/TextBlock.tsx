/**
 * Log text (actions, observations, task statements) shown as plain text in a <pre>: React inserts it as a
 * text node, so markup in a log is displayed, never interpreted (DESIGN §12). Long text starts collapsed.
 */
import { useState } from 'react';
import { formatCount } from '../../format/numbers.ts';

const COLLAPSED_LINES = 24;
const COLLAPSED_CHARS = 3000;

function collapse(text: string): string | null {
  let end = -1;
  let lines = 0;
  for (let i = 0; i < text.length && lines < COLLAPSED_LINES; i++) {
    if (text.charCodeAt(i) === 10) {
      lines++;
      end = i;
    }
  }
  const cut = Math.min(lines >= COLLAPSED_LINES ? end : text.length, COLLAPSED_CHARS);
  return cut < text.length ? text.slice(0, cut) : null;
}

export function TextBlock({ title, text, testId }: { title: string; text: string | null; testId: string }) {
  const [expanded, setExpanded] = useState(false);
  if (text === null || text === '') {
    return (
      <section className="text-block" data-testid={testId}>
        <h3>{title}</h3>
        <p className="faint text-block-none">None logged.</p>
      </section>
    );
  }
  const short = collapse(text);
  const lines = text.split('\n').length;
  return (
    <section className="text-block" data-testid={testId}>
      <h3>
        {title}
        <span className="faint text-block-size">
          {formatCount(lines)} {lines === 1 ? 'line' : 'lines'} · {formatCount(text.length)} chars
        </span>
      </h3>
      <pre className={short && !expanded ? 'is-collapsed' : undefined} data-testid={`${testId}-text`}>
        {short && !expanded ? short : text}
      </pre>
      {short && (
        <button type="button" className="btn btn-ghost text-block-toggle" onClick={() => setExpanded((e) => !e)} data-testid={`${testId}-toggle`}>
          {expanded ? 'Show less' : `Show all ${formatCount(lines)} lines`}
        </button>
      )}
    </section>
  );
}
