/**
 * Markdown from a log (a model's message, its reasoning, a task statement), rendered through react-markdown:
 * GitHub tables and lists (remark-gfm), then rehype-sanitize with its default schema, then highlighting of fenced
 * code with a named language (rehype-highlight; colours in reader.css from the theme's variables). HTML in the
 * text is never parsed as HTML: it is shown as the text it is (remarkHtmlAsText). Images are not loaded (a log could point at any
 * host); their alt text is shown instead. Links open outside the app.
 */
import { memo, useRef, type ComponentProps } from 'react';
import ReactMarkdown, { type Components } from 'react-markdown';
import rehypeHighlight from 'rehype-highlight';
import rehypeSanitize from 'rehype-sanitize';
import remarkGfm from 'remark-gfm';
import { HitText } from './HitText.tsx';
import { rehypeSearchHits, rehypeTrimCodeEnd, remarkHtmlAsText } from './markdownSteps.ts';
import { useScrollToFirstHit } from './useScrollToFirstHit.ts';
import '../views/episode/reader.css';

/** Above this a text is shown as plain text: parsing 100 kB of markdown takes ~100 ms, a megabyte would block typing. */
export const MARKDOWN_MAX_CHARS = 100_000;

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

export function Markdown({
  text,
  highlight,
  className,
  testId,
}: {
  text: string;
  /** A search term: its occurrences are marked and the first one on the page is scrolled into view. */
  highlight?: string;
  className?: string;
  testId?: string;
}) {
  const ref = useRef<HTMLDivElement>(null);
  useScrollToFirstHit(ref, highlight, text);
  const tooLong = text.length > MARKDOWN_MAX_CHARS;
  return (
    <div ref={ref} className={`markdown${className ? ` ${className}` : ''}`} data-testid={testId} data-format={tooLong ? 'plain' : 'markdown'}>
      {tooLong ? (
        <pre className="md-plain">
          <HitText text={text} highlight={highlight} />
        </pre>
      ) : <Rendered text={text} highlight={highlight} />}
    </div>
  );
}
