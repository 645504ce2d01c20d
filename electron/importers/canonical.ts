/** `routelens/v1` JSON Lines (DESIGN §3): one canonical episode per line, validated with the shared schema. */
import { CANONICAL_SCHEMA, describeIssue, parseCanonicalEpisode, type CanonicalEpisode } from '../../shared/canonical.ts';
import { readJsonLines } from './lineReader.ts';
import { ImportError, type ImportContext, type Importer } from './types.ts';

/** A line longer than this is refused before parsing: no real episode comes near it, and it bounds memory. */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

function firstLine(head: string): string {
  const trimmed = head.replace(/^\uFEFF/, '').trimStart();
  const end = trimmed.indexOf('\n');
  return end === -1 ? trimmed : trimmed.slice(0, end);
}

/**
 * The episode one parsed line holds, checked against the shared schema (`runName`: `--run`), or an ImportError
 * at that line. The store's import threads check each line with it too (electron/store/clickhouse/import/rangeWorker.ts).
 */
export function canonicalLine(file: string, lineNo: number, value: unknown, runName: string | undefined): CanonicalEpisode {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ImportError(file, lineNo, 'expected one JSON object (an episode) per line');
  }
  if ((value as { schema?: unknown }).schema !== CANONICAL_SCHEMA) {
    throw new ImportError(file, lineNo, `schema: expected "${CANONICAL_SCHEMA}"`);
  }
  const parsed = parseCanonicalEpisode(value);
  if (!parsed.success) throw new ImportError(file, lineNo, describeIssue(parsed.error));
  return runName ? { ...parsed.data, run: runName } : parsed.data;
}

export const canonicalImporter: Importer = {
  format: 'canonical',
  expects: 'routelens/v1 JSON Lines: one episode object per line with "schema":"routelens/v1"',

  detect(head) {
    const line = firstLine(head);
    return line.startsWith('{') && /"schema"\s*:\s*"routelens\/v1"/.test(line.slice(0, 65536));
  },

  async *read(file: string, ctx: ImportContext) {
    const seen = new Map<string, number>();
    for await (const { lineNo, value } of readJsonLines(file, { maxLineBytes: MAX_LINE_BYTES, onBytes: ctx.onBytes })) {
      const episode = canonicalLine(file, lineNo, value, ctx.runName);
      const key = `${episode.run}\u0000${episode.episode_id}`;
      const first = seen.get(key);
      if (first !== undefined) {
        throw new ImportError(file, lineNo, `duplicate episode_id "${episode.episode_id}" in run "${episode.run}" (first on line ${first})`);
      }
      seen.set(key, lineNo);
      yield episode;
    }
  },
};
