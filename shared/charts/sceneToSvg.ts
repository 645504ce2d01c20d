/**
 * Scene → standalone SVG document, in the core (exports, `routelens export`) and in the window (the policy
 * lab's figure, rasterised by the browser). Everything that came from a log (model, run, tool names in text
 * and tooltips) is escaped as XML text; attribute values are escaped too, and colours and path data are
 * checked against what a layout can produce. The document holds no script, no foreignObject, no external
 * reference (no href at all) and names its font family only — nothing embedded, nothing fetched.
 */
import type { Mark, Scene } from './scene.ts';
import { alphabeticY } from './text.ts';

// XML 1.0 forbids these code points; a log can contain them, so they are dropped.
// eslint-disable-next-line no-control-regex
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function escapeXml(text: string): string {
  return text
    .replace(NOT_XML, '')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

// Colours layouts produce: #hex, rgb()/rgba() (d3 interpolators), a CSS name. Anything else is dropped.
const COLOR = /^(#[0-9a-fA-F]{3,8}|rgba?\(\s*[\d.]+%?\s*,\s*[\d.]+%?\s*,\s*[\d.]+%?\s*(,\s*[\d.]+\s*)?\)|[a-zA-Z]{1,30})$/;
const PATH = /^[MmLlHhVvCcSsQqTtAaZz0-9eE.,+\-\s]*$/;
const DASH = /^[\d.\s,]*$/;

const num = (x: number): string => (Number.isFinite(x) ? String(Math.round(x * 100) / 100) : '0');
const color = (c: string | undefined): string => (c !== undefined && COLOR.test(c) ? c : 'none');

function paint(m: Mark, defaultFill: string): string {
  const a: string[] = [`fill="${m.fill === undefined ? defaultFill : color(m.fill)}"`];
  if (m.series !== undefined) a.push(`data-series="${escapeXml(m.series)}"`);
  if (m.stroke !== undefined) a.push(`stroke="${color(m.stroke)}"`, `stroke-width="${num(m.strokeWidth ?? 1)}"`);
  if (m.opacity !== undefined) a.push(`opacity="${num(m.opacity)}"`);
  if (m.dash !== undefined && DASH.test(m.dash)) a.push(`stroke-dasharray="${m.dash}"`);
  return a.join(' ');
}

/** Hover text for the exported file (shown by browsers and most viewers), the same lines as the window's tooltip. */
function titleOf(m: Mark): string {
  return m.datum ? `<title>${escapeXml(m.datum.lines.join('\n'))}</title>` : '';
}

function element(tag: string, attrs: string, m: Mark): string {
  const title = titleOf(m);
  return title ? `<${tag} ${attrs}>${title}</${tag}>` : `<${tag} ${attrs}/>`;
}

function markSvg(m: Mark): string {
  switch (m.type) {
    case 'rect':
      return element('rect', `x="${num(m.x)}" y="${num(m.y)}" width="${num(Math.max(0, m.width))}" height="${num(Math.max(0, m.height))}"${m.rx ? ` rx="${num(m.rx)}"` : ''} ${paint(m, 'none')}`, m);
    case 'line':
      return element('line', `x1="${num(m.x1)}" y1="${num(m.y1)}" x2="${num(m.x2)}" y2="${num(m.y2)}" ${paint(m, 'none')}`, m);
    case 'circle':
      return element('circle', `cx="${num(m.cx)}" cy="${num(m.cy)}" r="${num(Math.max(0, m.r))}" ${paint(m, 'none')}`, m);
    case 'path':
      return PATH.test(m.d) ? element('path', `d="${m.d}" ${paint(m, 'none')}`, m) : '';
    case 'text': {
      const y = alphabeticY(m.y, m.fontSize, m.baseline);
      const anchor = m.anchor && m.anchor !== 'start' ? ` text-anchor="${m.anchor}"` : '';
      const weight = m.weight === 'bold' ? ' font-weight="bold"' : '';
      const rotate = m.rotate ? ` transform="rotate(${num(m.rotate)} ${num(m.x)} ${num(m.y)})"` : '';
      return `<text x="${num(m.x)}" y="${num(y)}" font-size="${num(m.fontSize)}"${anchor}${weight}${rotate} ${paint(m, '#000000')}>${titleOf(m)}${escapeXml(m.text)}</text>`;
    }
    case 'group': {
      const move = m.x || m.y ? ` transform="translate(${num(m.x ?? 0)} ${num(m.y ?? 0)})"` : '';
      const opacity = m.opacity !== undefined ? ` opacity="${num(m.opacity)}"` : '';
      const series = m.series !== undefined ? ` data-series="${escapeXml(m.series)}"` : '';
      return `<g${move}${opacity}${series}>${titleOf(m)}${m.marks.map(markSvg).join('')}</g>`;
    }
  }
}

export function sceneToSvg(scene: Scene): string {
  const w = num(scene.width);
  const h = num(scene.height);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" role="img">`,
    `<title>${escapeXml(scene.title)}</title>`,
    `<rect x="0" y="0" width="${w}" height="${h}" fill="${color(scene.background)}"/>`,
    `<g font-family="${escapeXml(scene.fontFamily)}">`,
    ...scene.marks.map(markSvg),
    '</g>',
    '</svg>',
    '',
  ].join('\n');
}
