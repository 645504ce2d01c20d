/** Saves text the window made (a CSV, an SVG) as a file: a Blob link clicked once (the browser or Electron asks where). */
export function downloadText(name: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
  // Revoked after the click has been handled; revoking at once can cancel the download in Chromium.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** The SVG of a figure drawn on screen, as a standalone document. */
export function svgDocument(svg: SVGSVGElement): string {
  const copy = svg.cloneNode(true) as SVGSVGElement;
  copy.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  return `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(copy)}\n`;
}
