/**
 * Why a file found in a folder was not read. A folder import lists every such file with its reason (issue 15):
 * "N other files ignored" without names left users guessing whether their logs were read at all.
 */
import { extname } from 'node:path';
import { closestFormat } from './closestFormat.ts';
import { sniffJsonHead } from './jsonHead.ts';
import type { Importer } from './types.ts';

export interface IgnoredFile {
  path: string;
  reason: string;
}

/** Extensions of files that are plainly not agent logs, named for the reason. */
const NOT_LOGS: Record<string, string> = {
  '.py': 'Python source', '.ts': 'TypeScript source', '.js': 'JavaScript source', '.sh': 'a shell script',
  '.png': 'an image', '.jpg': 'an image', '.jpeg': 'an image', '.gif': 'an image', '.svg': 'an image', '.pdf': 'a PDF',
  '.md': 'Markdown text', '.txt': 'plain text', '.html': 'HTML', '.css': 'CSS', '.yaml': 'YAML', '.yml': 'YAML',
  '.toml': 'TOML', '.csv': 'a CSV table', '.diff': 'a diff', '.patch': 'a patch', '.lock': 'a lock file',
  '.db': 'a database', '.sqlite': 'a database', '.zip': 'a ZIP archive', '.gz': 'a compressed file',
};

const MAX_KEYS_SHOWN = 6;

function keysOf(keys: string[]): string {
  const shown = keys.slice(0, MAX_KEYS_SHOWN).map((k) => JSON.stringify(k.slice(0, 40))).join(', ');
  return keys.length > MAX_KEYS_SHOWN ? `${shown}, …` : shown;
}

/** What the first non-empty line of a JSON Lines head holds, when it is a JSON object. */
function firstLineKeys(head: string): string[] | null {
  const line = head.replace(/^\uFEFF/, '').split('\n').find((l) => l.trim() !== '');
  if (!line) return null;
  try {
    const v: unknown = JSON.parse(line);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? Object.keys(v) : null;
  } catch {
    return null;
  }
}

export function whyIgnored(fileName: string, head: string, size: number, importers: readonly Importer[]): string {
  const reason = whyNotRead(fileName, head, size, importers);
  if (!reason.startsWith('unknown format')) return reason;
  // A variant of a known format is the likeliest reason a log goes unread: name the format it resembles.
  const near = closestFormat(head, importers);
  return near ? `${reason}; closest: ${near.format} (${near.expects})` : reason;
}

function whyNotRead(fileName: string, head: string, size: number, importers: readonly Importer[]): string {
  if (size === 0) return 'empty file';
  for (const imp of importers) {
    if (imp.sidecars?.some((re) => re.test(fileName))) {
      return `sidecar of ${imp.format} logs (read with the trajectories beside it, not on its own)`;
    }
  }
  if (head.includes('\u0000')) return 'not a log: binary file';
  const ext = extname(fileName).toLowerCase();
  const trimmed = head.replace(/^\uFEFF/, '').trimStart();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    const jsonl = firstLineKeys(trimmed);
    if (jsonl && trimmed.indexOf('\n') > 0 && trimmed.indexOf('\n') < trimmed.length - 1) {
      return `unknown format: JSON Lines whose first record has keys ${keysOf(jsonl)}`;
    }
    const sniff = sniffJsonHead(trimmed);
    if (sniff.container === 'array' && sniff.keys.length === 0) return 'unknown format: a JSON array';
    if (sniff.container) {
      const what = sniff.container === 'array' ? 'a JSON array of objects with keys' : 'a JSON object with keys';
      return sniff.keys.length > 0 ? `unknown format: ${what} ${keysOf(sniff.keys)}` : 'unknown format: JSON';
    }
  }
  const kind = NOT_LOGS[ext];
  if (kind) return `not a log: ${kind}`;
  return 'unknown format: no importer recognises its content';
}
