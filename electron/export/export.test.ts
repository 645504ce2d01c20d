// The exporter on small scenes: hostile text stays text in SVG, PNG sizes for 2× and a DPI, vector PDF, CSV quoting.
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { toCsv } from '../../shared/charts/csv.ts';
import type { Scene } from '../../shared/charts/scene.ts';
import { sceneToPdf } from './pdf.ts';
import { pngScale, svgToPng } from './png.ts';
import { escapeXml, sceneToSvg } from './svg.ts';

const hostile = '<script>alert("x")</script> & "quoted" \'single\'';

const scene: Scene = {
  width: 300,
  height: 200,
  background: '#ffffff',
  fontFamily: "'DejaVu Sans', sans-serif",
  title: `lift of ${hostile}`,
  marks: [
    { type: 'rect', x: 10, y: 10, width: 100, height: 50, fill: '#0072B2', datum: { lines: [hostile, 'n = 3 turns'] } },
    { type: 'line', x1: 0, y1: 190, x2: 300, y2: 190, stroke: '#000000', dash: '4 3' },
    { type: 'circle', cx: 200, cy: 60, r: 8, fill: 'rgb(230, 159, 0)' },
    { type: 'path', d: 'M10,100L100,150H200V120Z', stroke: '#009E73', strokeWidth: 2 },
    { type: 'text', x: 150, y: 20, text: hostile, fontSize: 12, anchor: 'middle', baseline: 'hanging', fill: '#111111' },
    { type: 'text', x: 20, y: 180, text: 'rotated label', fontSize: 11, rotate: -45 },
    { type: 'group', x: 5, y: 5, marks: [{ type: 'rect', x: 0, y: 0, width: 4, height: 4, fill: 'javascript:alert(1)' }] },
  ],
};

function pngInfo(png: Buffer): { width: number; height: number; dpi: number | null } {
  expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  expect(png.toString('latin1', 12, 16)).toBe('IHDR');
  let dpi: number | null = null;
  for (let at = 8; at < png.length; ) {
    const len = png.readUInt32BE(at);
    if (png.toString('latin1', at + 4, at + 8) === 'pHYs') dpi = Math.round(png.readUInt32BE(at + 8) * 0.0254);
    at += 12 + len;
  }
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20), dpi };
}

describe('SVG', () => {
  const svg = sceneToSvg(scene);
  it('escapes every text from logs and carries no script, foreign object or external reference', () => {
    expect(svg).not.toMatch(/<script/i);
    expect(svg).not.toMatch(/foreignObject|href|javascript:|url\(/i);
    expect(svg).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &quot;quoted&quot; &#39;single&#39;');
    // The bad colour was dropped, not written.
    expect(svg).toContain('<rect x="0" y="0" width="4" height="4" fill="none"/>');
  });
  it('is well-formed for an XML parser (escaping holds, control characters dropped)', () => {
    expect(escapeXml('a\u0000b\u0008c\u001Fd')).toBe('abcd');
    // resvg is a strict XML parser: a broken document would throw here.
    expect(() => svgToPng(svg)).not.toThrow();
  });
});

describe('PNG', () => {
  it('is 2× the figure by default', () => {
    const info = pngInfo(svgToPng(sceneToSvg(scene)));
    expect(info).toEqual({ width: 600, height: 400, dpi: 192 });
  });
  it('is inches × dpi pixels at a chosen DPI, and records it', () => {
    // 300 CSS px = 3.125 in; at 300 dpi that is 937.5 → 938 px.
    expect(pngScale({ dpi: 300 })).toBeCloseTo(3.125, 12);
    const info = pngInfo(svgToPng(sceneToSvg(scene), { dpi: 300 }));
    expect(info.width).toBe(Math.round(300 * 3.125));
    expect(info.height).toBe(Math.round(200 * 3.125));
    expect(info.dpi).toBe(300);
  });
  it('draws the text (a font was found and used)', () => {
    const textOnly: Scene = { ...scene, marks: [{ type: 'text', x: 10, y: 100, text: 'MMMM', fontSize: 40, fill: '#000000' }] };
    const blank: Scene = { ...scene, marks: [] };
    const size = (s: Scene) => svgToPng(sceneToSvg(s)).length;
    expect(size(textOnly)).toBeGreaterThan(size(blank) + 200);
  });
});

describe('PDF', () => {
  it('is a one-page vector PDF: paths, fills and text, no image', async () => {
    const pdf = await sceneToPdf(scene);
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const raw = pdf.toString('latin1');
    expect(raw).not.toMatch(/\/Subtype\s*\/Image/);
    expect(raw.match(/\/Type \/Page\b/g)).toHaveLength(1);
    // Page content streams are deflated: inflate them and look for drawing operators.
    const streams = [...raw.matchAll(/stream\r?\n([\s\S]*?)endstream/g)].map((m) => {
      try {
        return inflateSync(Buffer.from(m[1] as string, 'latin1')).toString('latin1');
      } catch {
        return '';
      }
    });
    const content = streams.join('\n');
    expect(content).toMatch(/\bre\b/); // rectangle
    expect(content).toMatch(/\bl\b/); // line to
    expect(content).toMatch(/\bc\b/); // curve (the circle)
    expect(content).toMatch(/\bBT\b[\s\S]*\b(Tj|TJ)\b/); // text
    expect(content).toMatch(/\[4 3\] 0 d/); // the dash
  });
});

describe('CSV', () => {
  it('quotes per RFC 4180 and neutralises formulas', () => {
    const csv = toCsv(['model', 'n', 'note'], [
      ['gpt-5, "mini"', 3, 'line\nbreak'],
      ['=HYPERLINK("http://x")', -2, '+1'],
      ['@SUM(A1)', 0.5, '-cmd'],
      [null, Number.NaN, true],
    ]);
    expect(csv).toBe(
      'model,n,note\r\n' +
        '"gpt-5, ""mini""",3,line\\nbreak\r\n' + // a line feed in a cell shows as \n (shared/displayText.ts)
        '"\'=HYPERLINK(""http://x"")",-2,\'+1\r\n' +
        "'@SUM(A1),0.5,'-cmd\r\n" +
        ',,true\r\n',
    );
  });
});
