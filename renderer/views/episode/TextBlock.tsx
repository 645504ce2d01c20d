/**
 * One block of log text in the inspector, in the form a reader expects: a model's message or reasoning as
 * markdown, a command or a tool call's input as highlighted code, an observation or a tool's result as the
 * terminal showed it (plain monospace). Nothing from a log is inserted as HTML: plain text goes in as text
 * nodes, markdown through the sanitised Markdown component. Long text opens collapsed with its size said; the
 * rest stays in the page under `hidden="until-found"`, so Ctrl+F finds it and opens the block.
 */
import { useLayoutEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { CopyButton } from '../../components/CopyButton.tsx';
import { HitText } from '../../components/HitText.tsx';
import { MARKDOWN_MAX_CHARS, Markdown } from '../../components/Markdown.tsx';
import { UntilFound } from '../../components/UntilFound.tsx';
import { useScrollToFirstHit } from '../../components/useScrollToFirstHit.ts';
import { codeFence } from '../../format/codeFence.ts';
import { formatCount } from '../../format/numbers.ts';
import { hasHit } from '../../format/searchHits.ts';
import { countLines, cutMarkdown, cutPlain, type Cut } from '../../format/textCollapse.ts';
import './reader.css';

/** `markdown`: prose from a model; `code`: highlighted as `language`; `terminal`: output exactly as printed. */
export type TextFormat = 'markdown' | 'code' | 'terminal';

const COLLAPSED_LINES = 24;
const COLLAPSED_CHARS = 3000;
const COLLAPSED_MARKDOWN_LINES = 40;

/** How much a collapsed block shows: lines (and characters, for text that is not markdown). */
export interface CollapseAt {
  lines: number;
  chars: number;
}

const DEFAULT_COLLAPSE: CollapseAt = { lines: COLLAPSED_LINES, chars: COLLAPSED_CHARS };

function cut(text: string, format: TextFormat, at: CollapseAt | undefined): Cut | null {
  return format === 'markdown' && text.length <= MARKDOWN_MAX_CHARS
    ? cutMarkdown(text, at?.lines ?? COLLAPSED_MARKDOWN_LINES)
    : cutPlain(text, (at ?? DEFAULT_COLLAPSE).lines, (at ?? DEFAULT_COLLAPSE).chars);
}

/** One part of the text (the head, or the hidden rest) in its format; code too long to highlight stays plain. */
function Part({ text, format, language, highlight }: { text: string; format: TextFormat; language?: string; highlight?: string }) {
  if (format === 'markdown') return <Markdown text={text} highlight={highlight} />;
  if (format === 'code' && language && text.length <= MARKDOWN_MAX_CHARS) {
    return <Markdown text={codeFence(text, language)} highlight={highlight} className="markdown-code" fenced />;
  }
  return <HitText text={text} highlight={highlight} />;
}

export function TextBlock({
  title,
  text,
  testId,
  format = 'terminal',
  language,
  highlight,
  aside,
  collapseAt,
}: {
  title: string;
  text: string | null;
  testId: string;
  format?: TextFormat;
  /** For format `code`: a highlight.js language name (bash, python, json…). */
  language?: string;
  /** A search term: marked wherever it occurs; a collapsed block whose hidden part holds it opens. */
  highlight?: string;
  /** Said beside the title (a tag, a note). */
  aside?: ReactNode;
  /** Where a long text is cut when it opens collapsed; by default 24 lines or 3,000 characters (40 lines of markdown). */
  collapseAt?: CollapseAt;
}) {
  // null until the reader chooses: then a block opens by itself when the search term is in its hidden part.
  const [choice, setChoice] = useState<boolean | null>(null);
  const ref = useRef<HTMLElement>(null);
  const parts = useMemo(() => (text ? cut(text, format, collapseAt) : null), [text, format, collapseAt]);
  const lines = useMemo(() => (text ? countLines(text) : 0), [text]);
  const hitHidden = useMemo(() => (parts ? hasHit(parts.rest, highlight) : false), [parts, highlight]);
  const open = !parts || (choice ?? hitHidden);
  useScrollToFirstHit(ref, highlight, text, open);
  // "Show less" keeps the block in view: once it is short again (before, a block taller than the window is never
  // moved by `nearest`, and the text under it could then scroll past the end of what is left).
  const collapsing = useRef(false);
  useLayoutEffect(() => {
    if (!collapsing.current || open) return;
    collapsing.current = false;
    ref.current?.scrollIntoView({ block: 'nearest' });
  }, [open]);

  if (text === null || text === '') {
    return (
      <section className="text-block" data-testid={testId}>
        <div className="text-block-head">
          <h3>{title}</h3>
          {aside}
        </div>
        <p className="faint text-block-none">None logged.</p>
      </section>
    );
  }
  const plain = format === 'terminal' || (format === 'code' && !language);
  // A single huge line is counted in characters: "Show all 1 lines" would say nothing.
  const restHasLines = parts ? parts.rest.includes('\n') : false;
  const showAll = restHasLines ? `Show all ${formatCount(lines)} lines` : `Show all ${formatCount(text.length)} characters`;
  const body = (
    <>
      <Part text={parts ? parts.head : text} format={format} language={language} highlight={highlight} />
      {parts && (
        <UntilFound open={open} onFound={() => setChoice(true)} as={plain ? 'span' : 'div'} className="text-block-rest" testId={`${testId}-rest`}>
          <Part text={parts.rest} format={format} language={language} highlight={highlight} />
        </UntilFound>
      )}
    </>
  );
  return (
    <section className="text-block" data-testid={testId} data-format={format} ref={ref}>
      <div className="text-block-head">
        <h3>{title}</h3>
        {aside}
        <span className="faint text-block-size">
          {formatCount(lines)} {lines === 1 ? 'line' : 'lines'} · {formatCount(text.length)} chars
        </span>
        <CopyButton text={text} label={`Copy ${title.toLowerCase()}`} testId={`${testId}-copy`} />
      </div>
      {plain ? (
        <pre className={`text-block-body${open ? '' : ' is-collapsed'}`} data-testid={`${testId}-text`}>
          {body}
        </pre>
      ) : (
        <div className={`text-block-body text-block-rich${open ? '' : ' is-collapsed'}`} data-testid={`${testId}-text`}>
          {body}
        </div>
      )}
      {parts && (
        <button
          type="button"
          className="btn btn-ghost text-block-toggle"
          aria-expanded={open}
          onClick={() => {
            collapsing.current = open;
            setChoice(!open);
          }}
          data-testid={`${testId}-toggle`}
        >
          {open ? 'Show less' : showAll}
        </button>
      )}
    </section>
  );
}
