/**
 * How large a raster figure RouteLens draws (issue 38 item 5). resvg holds the whole image as RGBA while it
 * draws and encodes: 4 bytes a pixel, then the PNG, so a 4000 px wide figure at 1200 dpi (50,000 px wide,
 * 1.4 gigapixels) took the server to 20 GB. 50 megapixels (~200 MB while drawing) is a poster at 300 dpi
 * (about 72 × 58 cm) and 25× the window's default export; beyond it the request is refused with the limit
 * named. Kept apart from png.ts so the API boundary can name the error without loading resvg.
 */

export const MAX_PNG_PIXELS = 50_000_000;

/** A PNG larger than MAX_PNG_PIXELS was asked for: the caller's to change (exit 1, HTTP 400). */
export class FigureTooLargeError extends RangeError {}

/** Refuses a PNG of `width` × `height` CSS px at `scale` pixels per CSS px when it would pass the limit. */
export function checkPngPixels(width: number, height: number, scale: number): void {
  const w = Math.ceil(width * scale);
  const h = Math.ceil(height * scale);
  if (w * h <= MAX_PNG_PIXELS) return;
  throw new FigureTooLargeError(
    `a PNG of ${w.toLocaleString('en-US')} × ${h.toLocaleString('en-US')} px (${(w * h / 1e6).toFixed(0)} megapixels) is over the limit of ` +
      `${MAX_PNG_PIXELS / 1e6} megapixels: lower the dpi, the scale or the width, or export SVG or PDF (vector, any size)`,
  );
}
