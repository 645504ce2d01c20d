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

describe('Markdown bounded (issue 38 item 1)', () => {
  // Before the scan: `>` x 3,000 threw "Maximum call stack size exceeded" (after 2.5 s), `- ` x 1,000 did in the
  // browser, `*a` x 49,000 rendered for 96 s.
  it.each([
    ['`>` x 3,000', '>'.repeat(3000), 'too-deep', 'nested too deeply to format'],
    ['`- ` x 1,000', '- '.repeat(1000), 'too-deep', 'nested too deeply to format'],
    ['`*a` x 49,000', '*a'.repeat(49_000), 'too-many-marks', 'too many emphasis marks or brackets to format'],
  ])('%s renders as plain text in under a second and says why', (_name, text, reason, said) => {
    const t = performance.now();
    const out = html(text);
    expect(performance.now() - t).toBeLessThan(1000);
    expect(out).toContain('data-format="plain"');
    expect(out).toContain(`data-plain-reason="${reason}"`);
    expect(out).toContain(`Shown as plain text: ${said}.`);
    expect(out).toContain(text.slice(0, 200).replace(/>/g, '&gt;'));
  });

  it('ordinary markdown still renders as markdown: headings, lists 4 deep, code blocks, tables', () => {
    const out = html(
      [
        '# Plan',
        '',
        '- one',
        '  - two',
        '    - three',
        '      - four',
        '',
        '```bash',
        'ls -la',
        '```',
        '',
        '| a | b |',
        '|---|---|',
        '| 1 | 2 |',
      ].join('\n'),
    );
    expect(out).toContain('data-format="markdown"');
    expect(out).toContain('<h1>Plan</h1>');
    expect(out.match(/<ul>/g)).toHaveLength(4);
    expect(out).toContain('class="hljs language-bash"');
    expect(out).toContain('<td>2</td>');
    expect(out).not.toContain('Shown as plain text');
  });

  it('a fenced code block is bounded by size only: its marks are not markdown', () => {
    const code = `\`\`\`python\n${'x = a*b*c[i][j]\n'.repeat(1000)}\`\`\``;
    expect(renderToStaticMarkup(<Markdown text={code} fenced />)).toContain('class="hljs language-python"');
  });
});
