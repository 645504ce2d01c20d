/**
 * Saving files from the window: a Blob behind an <a download> clicked once, no navigation (the browser, or
 * Electron's default dialog, asks where).
 */
export function base64Bytes(data: string): Uint8Array<ArrayBuffer> {
  const text = atob(data);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

export function downloadBlob(filename: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
  // Revoked after the click has handed the Blob to the download; revoking at once can cancel it in Chromium.
  setTimeout(() => URL.revokeObjectURL(url), 30_000);
}

/** Bytes the core produced (an export), base64 as the API carries them. */
export function downloadBase64(filename: string, mime: string, data: string): void {
  downloadBlob(filename, new Blob([base64Bytes(data)], { type: mime }));
}

/** Text the window made (a CSV, an SVG). */
export function downloadText(filename: string, text: string, mime: string): void {
  downloadBlob(filename, new Blob([text], { type: mime }));
}

/** The SVG of a figure drawn on screen, as a standalone document. */
export function svgDocument(svg: SVGSVGElement): string {
  const copy = svg.cloneNode(true) as SVGSVGElement;
  copy.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  return `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(copy)}\n`;
}
