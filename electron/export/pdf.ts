/**
 * Scene → vector PDF with pdfkit: every mark becomes PDF path, fill and text operators (no raster), so a
 * figure stays sharp at any zoom and its text is selectable. The page is the figure's size with CSS px
 * mapped to points (72/96). Text uses DejaVu Sans, embedded as a subset, when fonts.ts finds it (the same
 * face as the PNG, any script); otherwise the standard Helvetica, which needs no file but only covers
 * Windows-1252, so other characters are replaced by '?' there.
 */
import { color as parseColor } from 'd3';
import PDFDocument from 'pdfkit';
import { alphabeticY } from '../../shared/charts/text.ts';
import type { Mark, Scene } from '../../shared/charts/scene.ts';
import { findFonts } from './fonts.ts';

const PT_PER_PX = 72 / 96;

/** pdfkit wants hex; layouts also emit rgb() from d3 interpolators. Null means "no paint". */
function pdfColor(c: string | undefined): { hex: string; alpha: number } | null {
  if (c === undefined || c === 'none') return null;
  const parsed = parseColor(c);
  if (!parsed) return null;
  return { hex: parsed.formatHex(), alpha: parsed.opacity };
}

// Windows-1252 beyond Latin-1: what Helvetica (a standard PDF font) can show.
const CP1252_EXTRA = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');
const ASCII_FOR: Record<string, string> = { '≤': '<=', '≥': '>=', '−': '-', '→': '->', '×': 'x', 'ρ': 'rho', 'Δ': 'd', 'ŝ': 's^', 'S̃': 'S~' };

function winAnsi(text: string): string {
  let out = '';
  for (const ch of text.normalize('NFC')) {
    const code = ch.codePointAt(0) as number;
    if ((code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xff) || CP1252_EXTRA.has(ch)) out += ch;
    else out += ASCII_FOR[ch] ?? '?';
  }
  return out;
}

export async function sceneToPdf(scene: Scene): Promise<Buffer> {
  const doc = new PDFDocument({
    size: [scene.width * PT_PER_PX, scene.height * PT_PER_PX],
    margin: 0,
    autoFirstPage: true,
    compress: true,
    info: { Title: scene.title, Creator: 'RouteLens', Producer: 'RouteLens (pdfkit)' },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  const fonts = findFonts();
  let regular = 'Helvetica';
  let bold = 'Helvetica-Bold';
  if (fonts) {
    doc.registerFont('figure', fonts.regular);
    regular = 'figure';
    bold = 'figure';
    if (fonts.bold) {
      doc.registerFont('figure-bold', fonts.bold);
      bold = 'figure-bold';
    }
  }
  const textOf = (s: string): string => (fonts ? s : winAnsi(s));

  doc.scale(PT_PER_PX);
  const bg = pdfColor(scene.background);
  if (bg) doc.rect(0, 0, scene.width, scene.height).fill(bg.hex);

  const paint = (m: Mark): void => {
    const fill = pdfColor(m.fill);
    const stroke = m.stroke !== undefined ? pdfColor(m.stroke) : null;
    const opacity = m.opacity ?? 1;
    if (stroke) {
      doc.lineWidth(m.strokeWidth ?? 1).strokeColor(stroke.hex).strokeOpacity(stroke.alpha * opacity);
      if (m.dash) {
        const parts = m.dash.split(/[\s,]+/).map(Number).filter((x) => x > 0);
        // pdfkit takes a dash array too; its types only admit one length.
        if (parts.length > 0) doc.dash(parts as unknown as number, {});
      }
    }
    if (fill) doc.fillColor(fill.hex).fillOpacity(fill.alpha * opacity);
    if (fill && stroke) doc.fillAndStroke();
    else if (fill) doc.fill();
    else if (stroke) doc.stroke();
    else doc.path(''); // ends the path without painting
    if (stroke && m.dash) doc.undash();
  };

  const draw = (m: Mark): void => {
    switch (m.type) {
      case 'rect':
        if (m.rx) doc.roundedRect(m.x, m.y, Math.max(0, m.width), Math.max(0, m.height), m.rx);
        else doc.rect(m.x, m.y, Math.max(0, m.width), Math.max(0, m.height));
        paint(m);
        return;
      case 'line':
        doc.moveTo(m.x1, m.y1).lineTo(m.x2, m.y2);
        paint({ ...m, fill: undefined });
        return;
      case 'circle':
        doc.circle(m.cx, m.cy, Math.max(0, m.r));
        paint(m);
        return;
      case 'path':
        doc.path(m.d);
        paint(m);
        return;
      case 'text': {
        const fill = pdfColor(m.fill ?? '#000000');
        if (!fill) return;
        const text = textOf(m.text);
        doc.save();
        doc.font(m.weight === 'bold' ? bold : regular).fontSize(m.fontSize);
        doc.fillColor(fill.hex).fillOpacity(fill.alpha * (m.opacity ?? 1));
        if (m.rotate) doc.rotate(m.rotate, { origin: [m.x, m.y] });
        const w = doc.widthOfString(text);
        const x = m.anchor === 'middle' ? m.x - w / 2 : m.anchor === 'end' ? m.x - w : m.x;
        doc.text(text, x, alphabeticY(m.y, m.fontSize, m.baseline), { lineBreak: false, baseline: 'alphabetic' });
        doc.restore();
        return;
      }
      case 'group':
        doc.save();
        doc.translate(m.x ?? 0, m.y ?? 0);
        for (const child of m.marks) draw(child);
        doc.restore();
        return;
    }
  };
  for (const m of scene.marks) draw(m);
  doc.end();
  return done;
}
