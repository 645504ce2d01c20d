/**
 * SVG → PNG with resvg (no browser). Size: `scale` × the figure's CSS size (2× by default, crisp on HiDPI
 * screens and slides), or a print resolution: a figure W CSS px wide is W/96 inches, so `dpi` gives
 * W/96 × dpi pixels, and the file records that resolution (pHYs chunk) so layout programs place it at the
 * intended physical size. Fonts are loaded from files we found (fonts.ts), never guessed by the system: the
 * same machine-independent text every time, or a clear error.
 */
import { Resvg } from '@resvg/resvg-js';
import { crc32 } from 'node:zlib';
import { checkPngPixels } from './figureLimits.ts';
import { requireFonts } from './fonts.ts';

export interface PngSize {
  /** Pixels per CSS px (default 2). */
  scale?: number;
  /** Print resolution; wins over `scale` (pixels = inches × dpi, 96 CSS px per inch). */
  dpi?: number;
}

export function pngScale(size: PngSize): number {
  if (size.dpi !== undefined) return size.dpi / 96;
  return size.scale ?? 2;
}

/** A PNG pHYs chunk: pixels per metre on both axes. */
function physChunk(dpi: number): Buffer {
  const ppm = Math.round(dpi / 0.0254);
  const body = Buffer.alloc(4 + 9);
  body.write('pHYs', 0, 'latin1');
  body.writeUInt32BE(ppm, 4);
  body.writeUInt32BE(ppm, 8);
  body.writeUInt8(1, 12); // unit: metre
  const chunk = Buffer.alloc(4 + body.length + 4);
  chunk.writeUInt32BE(9, 0);
  body.copy(chunk, 4);
  chunk.writeUInt32BE(crc32(body), 4 + body.length);
  return chunk;
}

/** Inserts (or replaces) the pHYs chunk right after IHDR. */
export function withDpi(png: Buffer, dpi: number): Buffer {
  const chunks: Buffer[] = [png.subarray(0, 8)];
  let at = 8;
  while (at < png.length) {
    const len = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    const end = at + 12 + len;
    if (type !== 'pHYs') chunks.push(png.subarray(at, end));
    if (type === 'IHDR') chunks.push(physChunk(dpi));
    at = end;
  }
  return Buffer.concat(chunks);
}

export function svgToPng(svg: string, size: PngSize = {}): Buffer {
  const scale = pngScale(size);
  if (!(scale > 0 && scale <= 16)) throw new RangeError(`PNG scale must be in (0, 16], got ${scale}`);
  const fonts = requireFonts();
  const resvg = new Resvg(svg, {
    fitTo: { mode: 'zoom', value: scale },
    font: {
      loadSystemFonts: false,
      fontFiles: [fonts.regular, ...(fonts.bold ? [fonts.bold] : [])],
      defaultFontFamily: fonts.family,
      sansSerifFamily: fonts.family,
    },
    shapeRendering: 2,
    textRendering: 1,
    logLevel: 'off',
  });
  // resvg's size is the SVG's own, before the zoom: refuse before anything is drawn.
  checkPngPixels(resvg.width, resvg.height, scale);
  const png = Buffer.from(resvg.render().asPng());
  return withDpi(png, size.dpi ?? 96 * scale);
}
