/**
 * One HTML file that shows a case offline (issue 37): the case viewer's script and styles (renderer/case/, built
 * beside the renderer as case/case.js and case/case.css) and the case's data inline, nothing else. The data is JSON,
 * gzipped and base64-encoded in a non-script block: base64 has no `<`, so no text of a log can close the block or
 * open a tag, and it is a third of the JSON's size. A Content-Security-Policy allows exactly the page's own script
 * and style (by their hashes) and data: images, so the page can load nothing from anywhere, not even a file.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { CASE_DATA_ID, type CaseData } from '../../shared/caseFile.ts';
import { rendererDir } from '../server/rendererDir.ts';

export interface CaseViewer {
  js: string;
  css: string;
}

export class CaseViewerMissingError extends Error {}

/** The built viewer; missing when the renderer was not built (npm run build:renderer builds both). */
export function readCaseViewer(dir = join(rendererDir, 'case')): CaseViewer {
  const js = join(dir, 'case.js');
  const css = join(dir, 'case.css');
  if (!existsSync(js) || !existsSync(css)) {
    throw new CaseViewerMissingError(`the case viewer is not built (${dir} has no case.js and case.css): run npm run build:renderer`);
  }
  return { js: readFileSync(js, 'utf8'), css: readFileSync(css, 'utf8') };
}

const sha256 = (text: string): string => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/**
 * Inline script and style text cannot hold `</script` / `</style` or `<!--` (the HTML parser ends the block or
 * changes how it reads it there). In the bundle they can only sit inside string or regex literals, where `\x3C`
 * (script) and `\<` (CSS strings) mean the same `<`.
 */
function inlineSafe(text: string, tag: 'script' | 'style'): string {
  const lt = tag === 'script' ? '\\x3C' : '\\<';
  return text.replace(new RegExp(`<(/${tag}|!--)`, 'gi'), `${lt}$1`);
}

const escapeHtml = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function encodeCaseData(data: CaseData): string {
  return gzipSync(Buffer.from(JSON.stringify(data), 'utf8'), { level: 9 }).toString('base64');
}

export function caseHtml(data: CaseData, viewer: CaseViewer): string {
  const js = inlineSafe(viewer.js, 'script');
  const css = inlineSafe(viewer.css, 'style');
  const csp = [
    "default-src 'none'",
    `script-src ${sha256(js)}`,
    `style-src ${sha256(css)}`,
    'img-src data:',
    "connect-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${csp}">`,
    '<meta name="referrer" content="no-referrer">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<meta name="generator" content="RouteLens ${escapeHtml(data.about.version)}">`,
    `<title>${escapeHtml(data.title)} — RouteLens case</title>`,
    `<style>${css}</style>`,
    '</head>',
    '<body>',
    '<div id="root"></div>',
    '<noscript>This RouteLens case needs JavaScript to show the conversation (its data is compressed in this file).</noscript>',
    `<script type="application/octet-stream" id="${CASE_DATA_ID}">${encodeCaseData(data)}</script>`,
    `<script>${js}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/** `routelens-case_<what>_<date>.html`, from the case's title: letters, digits, dots and dashes only. */
export function caseFileName(data: CaseData): string {
  const slug = data.title.replace(/[^A-Za-z0-9.-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 80) || data.kind;
  return `routelens-case_${slug}_${data.about.exported_at.slice(0, 10)}.html`;
}
