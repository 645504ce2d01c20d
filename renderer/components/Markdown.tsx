/**
 * Markdown from a log (a model's message, its reasoning, a task statement), rendered through react-markdown:
 * GitHub tables and lists (remark-gfm), then rehype-sanitize with its default schema, then highlighting of fenced
 * code with a named language (rehype-highlight; colours in reader.css from the theme's variables). HTML in the
 * text is never parsed as HTML: it is shown as the text it is (remarkHtmlAsText). Images are not loaded (a log could point at any
 * host); their alt text is shown instead. Links open outside the app.
 *
 * Text the parser would choke on (too long, nested too deeply, too many emphasis marks: markdownBudget.ts decides
 * in one scan before parsing) is shown as plain text with the reason said, and a block whose rendering throws
 * anyway falls back the same way inside its own boundary, so one message never takes the window down.
 */
import { memo, useMemo, useRef, type ComponentProps } from 'react';
import ReactMarkdown, { type Components } from 'react-markdown';
import rehypeHighlight from 'rehype-highlight';
import rehypeSanitize from 'rehype-sanitize';
import remarkGfm from 'remark-gfm';
import { MARKDOWN_MAX_CHARS, PLAIN_REASON_TEXT, plainTextReason, type PlainReason } from '../format/markdownBudget.ts';
import { BlockBoundary } from './BlockBoundary.tsx';
import { HitText } from './HitText.tsx';
import { rehypeSearchHits, rehypeTrimCodeEnd, remarkHtmlAsText } from './markdownSteps.ts';
import { useScrollToFirstHit } from './useScrollToFirstHit.ts';
import '../views/episode/reader.css';

export { MARKDOWN_MAX_CHARS };

const components: Components = {
  a: ({ href, children }) => (
    <a href={href} target="_blank" rel="noreferrer noopener">
      {children}
    </a>
  ),
  img: ({ alt }) => <span className="md-img">[image{alt ? `: ${alt}` : ''}]</span>,
};

const Rendered = memo(function Rendered({ text, highlight }: { text: string; highlight?: string }) {
  const rehypePlugins: ComponentProps<typeof ReactMarkdown>['rehypePlugins'] = [
    rehypeSanitize,
    rehypeTrimCodeEnd,
    [rehypeHighlight, { detect: false, plainText: ['text', 'txt', 'plain', 'plaintext', 'output', 'console'] }],
    [rehypeSearchHits, { term: highlight }],
  ];
  return (
    <ReactMarkdown remarkPlugins={[remarkGfm, remarkHtmlAsText]} rehypePlugins={rehypePlugins} components={components}>
      {text}
    </ReactMarkdown>
  );
});

function Plain({ text, highlight, reason }: { text: string; highlight?: string; reason: PlainReason | 'failed' }) {
  return (
    <>
      <p className="md-plain-note faint" data-testid="markdown-plain-note">
        Shown as plain text: {PLAIN_REASON_TEXT[reason]}.
      </p>
      <pre className="md-plain">
        <HitText text={text} highlight={highlight} />
      </pre>
    </>
  );
}

export function Markdown({
  text,
  highlight,
  className,
  testId,
  fenced = false,
}: {
  text: string;
  /** A search term: its occurrences are marked and the first one on the page is scrolled into view. */
  highlight?: string;
  className?: string;
  testId?: string;
  /** The text is one fenced code block (codeFence): nothing in it is parsed as markdown, so only its size is bounded. */
  fenced?: boolean;
}) {
  const ref = useRef<HTMLDivElement>(null);
  useScrollToFirstHit(ref, highlight, text);
  const reason = useMemo(() => (fenced ? (text.length > MARKDOWN_MAX_CHARS ? 'too-long' : null) : plainTextReason(text)), [text, fenced]);
  return (
    <div
      ref={ref}
      className={`markdown${className ? ` ${className}` : ''}`}
      data-testid={testId}
      data-format={reason ? 'plain' : 'markdown'}
      data-plain-reason={reason ?? undefined}
    >
      {reason ? (
        <Plain text={text} highlight={highlight} reason={reason} />
      ) : (
        <BlockBoundary resetKey={text} fallback={<Plain text={text} highlight={highlight} reason="failed" />}>
          <Rendered text={text} highlight={highlight} />
        </BlockBoundary>
      )}
    </div>
  );
}
