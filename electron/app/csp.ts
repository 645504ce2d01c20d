/**
 * The Content-Security-Policy of the desktop window. The UI is served from our own `app://routelens` origin
 * (protocol.ts), so `'self'` means exactly the built renderer in dist/renderer and nothing else on disk.
 *
 * - No `'unsafe-eval'` and no `'unsafe-inline'` anywhere: Vite emits scripts and styles as files, and React's
 *   `style` prop and d3's `.style()` write through CSSOM, which CSP does not govern. What this forbids in the
 *   renderer: `<style>` elements, `style="…"` strings in markup (`setAttribute('style', …)`), inline scripts.
 * - `img-src data: blob:` lets a chart be rasterised for PNG export (SVG → data: image → canvas).
 * - The API goes over IPC, so nothing needs a network connection beyond our own origin.
 */
export const CSP_DIRECTIVES: readonly string[] = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "worker-src 'self'",
  "object-src 'none'",
  "frame-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
];

export const CSP = CSP_DIRECTIVES.join('; ');

/** Headers as Electron's webRequest passes them: any casing, each a list of values. */
export type ResponseHeaders = Record<string, string | string[]>;

/** Replaces any CSP the response carried (in whatever casing) with ours. */
export function withCsp(headers: ResponseHeaders | undefined): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [key, value] of Object.entries(headers ?? {})) {
    if (key.toLowerCase() === 'content-security-policy') continue;
    out[key] = Array.isArray(value) ? value : [value];
  }
  out['Content-Security-Policy'] = [CSP];
  return out;
}
