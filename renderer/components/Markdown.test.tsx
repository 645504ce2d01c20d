import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { MARKDOWN_MAX_CHARS, Markdown } from './Markdown.tsx';

const html = (text: string, highlight?: string) => renderToStaticMarkup(<Markdown text={text} highlight={highlight} />);

describe('Markdown from a log', () => {
  it('renders markdown and GitHub tables', () => {
    const out = html('**bold** and `code`\n\n| a | b |\n|---|---|\n| 1 | 2 |');
    expect(out).toContain('<strong>bold</strong>');
    expect(out).toContain('<code>code</code>');
    expect(out).toContain('<td>2</td>');
  });
  it('shows raw HTML as text, never as elements', () => {
    const out = html('<img src=x onerror="alert(1)"> <script>alert(2)</script>\n\n<div onclick="x()">d</div>');
    expect(out).not.toMatch(/<img|<script|<div onclick/);
    expect(out).toContain('&lt;img src=x onerror=&quot;alert(1)&quot;&gt;');
  });
  it('drops javascript: links and does not load images', () => {
    const out = html('[click](javascript:alert(1)) ![a cat](http://attacker.invalid/cat.png)');
    expect(out).not.toContain('javascript:');
    expect(out).not.toContain('attacker.invalid');
    expect(out).toContain('[image: a cat]');
  });
  it('highlights fenced code with a language, without the trailing newline', () => {
    const out = html('```python\ndef f():\n    return 1\n```');
    expect(out).toContain('class="hljs language-python"');
    expect(out).toContain('<span class="hljs-keyword">def</span>');
    expect(out).toMatch(/1<\/span><\/code><\/pre>/);
  });
  it('marks the search term in text and code, case-insensitively', () => {
    const out = html('The Stove is hot.\n\n```bash\necho stove\n```', 'stove');
    expect(out.match(/<mark class="search-hit">/g)).toHaveLength(2);
    expect(out).toContain('<mark class="search-hit">Stove</mark>');
  });
  it('shows text too long to parse as plain text, still marked', () => {
    const out = html(`# title\n${'x'.repeat(MARKDOWN_MAX_CHARS)} needle`, 'needle');
    expect(out).toContain('data-format="plain"');
    expect(out).not.toContain('<h1>');
    expect(out).toContain('<mark class="search-hit">needle</mark>');
  });
});
