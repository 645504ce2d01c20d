/**
 * Text measurement without a DOM: layouts must run in a worker and in the CLI, so widths are estimated from
 * per-character advance widths of DejaVu Sans (the font the exporter embeds by name and the rasteriser
 * loads). Estimates err wide (never under by more than a few %), so labels placed with them do not overlap.
 */

// Advance widths in em of DejaVu Sans for ASCII 32..126 (from the font's hmtx table, rounded up).
const ADVANCE = [
  0.32, 0.4, 0.46, 0.84, 0.64, 0.95, 0.78, 0.28, 0.39, 0.39, 0.5, 0.84, 0.32, 0.36, 0.32, 0.34, // space ! " # $ % & ' ( ) * + , - . /
  0.64, 0.64, 0.64, 0.64, 0.64, 0.64, 0.64, 0.64, 0.64, 0.64, 0.34, 0.34, 0.84, 0.84, 0.84, 0.54, // 0-9 : ; < = > ?
  1.0, 0.69, 0.69, 0.7, 0.77, 0.64, 0.58, 0.78, 0.76, 0.3, 0.3, 0.66, 0.56, 0.87, 0.75, 0.79, // @ A-O
  0.61, 0.79, 0.7, 0.64, 0.62, 0.74, 0.69, 0.99, 0.69, 0.62, 0.69, 0.39, 0.34, 0.39, 0.84, 0.5, // P-Z [ \ ] ^ _
  0.5, 0.62, 0.64, 0.56, 0.64, 0.62, 0.36, 0.64, 0.64, 0.28, 0.28, 0.58, 0.28, 0.98, 0.64, 0.62, // ` a-o
  0.64, 0.64, 0.42, 0.53, 0.4, 0.64, 0.6, 0.83, 0.6, 0.6, 0.53, 0.64, 0.34, 0.64, 0.84, // p-z { | } ~
];

/** Estimated width in px of `text` at `fontSize` px (bold adds ~8%). */
export function textWidth(text: string, fontSize: number, bold = false): number {
  let em = 0;
  for (const ch of text) {
    const code = ch.codePointAt(0) as number;
    em += code >= 32 && code <= 126 ? (ADVANCE[code - 32] as number) : code > 0x2e80 ? 1.0 : 0.7;
  }
  return em * fontSize * (bold ? 1.08 : 1);
}

/** `text` cut with an ellipsis so it fits in `maxWidth` px (the full text stays in the mark's tooltip). */
export function fitText(text: string, fontSize: number, maxWidth: number, bold = false): string {
  if (textWidth(text, fontSize, bold) <= maxWidth) return text;
  const chars = [...text];
  let lo = 0;
  let hi = chars.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (textWidth(`${chars.slice(0, mid).join('')}…`, fontSize, bold) <= maxWidth) lo = mid;
    else hi = mid - 1;
  }
  return lo === 0 ? '…' : `${chars.slice(0, lo).join('')}…`;
}

/**
 * `text` broken at spaces into at most `maxLines` lines of `maxWidth` px; the last line is cut with an
 * ellipsis when the text does not fit. For figure notes, which must not lose their end to a narrow window.
 */
export function wrapText(text: string, fontSize: number, maxWidth: number, maxLines = 2): string[] {
  const lines: string[] = [];
  let line = '';
  const words = text.split(' ');
  for (let i = 0; i < words.length; i++) {
    const next = line ? `${line} ${words[i]}` : (words[i] as string);
    if (!line || textWidth(next, fontSize) <= maxWidth) {
      line = next;
      continue;
    }
    if (lines.length === maxLines - 1) {
      lines.push(fitText(words.slice(i).reduce((s, w) => `${s} ${w}`, line), fontSize, maxWidth));
      return lines;
    }
    lines.push(line);
    line = words[i] as string;
  }
  if (line) lines.push(fitText(line, fontSize, maxWidth));
  return lines;
}

/**
 * The alphabetic baseline of a text mark whose `y` is placed by `baseline`. Drawers (React, SVG export, PDF)
 * all place text on its alphabetic baseline with this shift, so no renderer's handling of
 * dominant-baseline (resvg, pdfkit and browsers differ) moves labels. Offsets are DejaVu Sans metrics:
 * half the cap height (0.73 em) for 'middle', the cap height plus a little for 'hanging'.
 */
export function alphabeticY(y: number, fontSize: number, baseline: 'middle' | 'alphabetic' | 'hanging' | undefined): number {
  if (baseline === 'middle') return y + 0.36 * fontSize;
  if (baseline === 'hanging') return y + 0.78 * fontSize;
  return y;
}
