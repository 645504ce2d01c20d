/**
 * The font files the PNG rasteriser (resvg) and the PDF writer use. Figures name DejaVu Sans first (its
 * metrics are what shared/charts/text.ts estimates with); Liberation Sans, Arial and Helvetica are fallbacks
 * with similar proportions. We ship no font: we look in the usual system places (Debian/Ubuntu packages
 * fonts-dejavu-core and fonts-liberation, which a Chromium install pulls in; macOS; Windows) and in
 * ROUTELENS_FONT_DIR, and say exactly what to install when nothing is there.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export interface FontSet {
  family: string;
  regular: string;
  bold: string | null;
}

const DIRS = [
  '/usr/share/fonts/truetype/dejavu',
  '/usr/share/fonts/dejavu',
  '/usr/share/fonts/TTF',
  '/usr/share/fonts/truetype/liberation',
  '/usr/share/fonts/truetype/liberation2',
  '/usr/share/fonts/liberation-sans',
  '/Library/Fonts',
  '/System/Library/Fonts/Supplemental',
  'C:\\Windows\\Fonts',
];

const FAMILIES: { family: string; regular: string; bold: string }[] = [
  { family: 'DejaVu Sans', regular: 'DejaVuSans.ttf', bold: 'DejaVuSans-Bold.ttf' },
  { family: 'Liberation Sans', regular: 'LiberationSans-Regular.ttf', bold: 'LiberationSans-Bold.ttf' },
  { family: 'Arial', regular: 'Arial.ttf', bold: 'Arial Bold.ttf' },
  { family: 'Arial', regular: 'arial.ttf', bold: 'arialbd.ttf' },
];

export class FontNotFoundError extends Error {}

function searchDirs(): string[] {
  const extra = process.env.ROUTELENS_FONT_DIR;
  return extra ? [extra, ...DIRS] : DIRS;
}

let cached: FontSet | null | undefined;

/** The first family found, or null. */
export function findFonts(): FontSet | null {
  if (cached !== undefined) return cached;
  cached = null;
  for (const f of FAMILIES) {
    for (const dir of searchDirs()) {
      const regular = join(dir, f.regular);
      if (!existsSync(regular)) continue;
      const bold = join(dir, f.bold);
      cached = { family: f.family, regular, bold: existsSync(bold) ? bold : null };
      return cached;
    }
  }
  return cached;
}

/** The fonts, or an error that says what to install. */
export function requireFonts(): FontSet {
  const fonts = findFonts();
  if (fonts) return fonts;
  const looked = searchDirs().filter((d) => existsSync(d));
  throw new FontNotFoundError(
    'no font for figure text: install DejaVu Sans (Debian/Ubuntu: apt-get install fonts-dejavu-core) or Liberation Sans, ' +
      `or point ROUTELENS_FONT_DIR at a folder holding DejaVuSans.ttf (looked in ${looked.length ? looked.join(', ') : DIRS.join(', ')})`,
  );
}

/** For tests: forget what was found (after changing ROUTELENS_FONT_DIR). */
export function resetFontCache(): void {
  cached = undefined;
}
