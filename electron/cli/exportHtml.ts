/**
 * `routelens export-html --db FILE (--episode ID | --run NAME | --compare A B) --out case.html`: a case as one HTML
 * file that opens anywhere, offline, with secrets redacted (issue 37). The same file as the window's "Share as HTML…"
 * (both go through electron/export/caseData.ts and caseHtml.ts).
 */
import { writeFileSync } from 'node:fs';
import { parseRedactPattern } from '../../shared/redact.ts';
import { visibleText as v } from '../../shared/displayText.ts';
import { openDatabase } from '../db/database.ts';
import { listRuns } from '../db/episodeQueries.ts';
import { gatherCase, type CaseRequest } from '../export/caseData.ts';
import { caseHtml, CaseViewerMissingError, readCaseViewer } from '../export/caseHtml.ts';
import { routelensVersion } from '../routelensVersion.ts';
import { createApi } from '../services/api.ts';
import { resolveEpisodeId } from '../services/episodeRef.ts';
import { NotFoundError } from '../services/serviceErrors.ts';
import type { Db } from '../db/dbHandle.ts';
import { err, requireDb, UsageError, type Command } from './common.ts';

/** The runs --compare names, or the run --run names, by name as `info` lists them. */
function runIdOf(db: Db, name: string): number {
  const run = listRuns(db).find((r) => r.name === name);
  if (!run) throw new UsageError(`no run "${v(name)}" (routelens info --db FILE lists them)`);
  return run.id;
}

function requestOf(db: Db, values: Record<string, unknown>, positionals: string[]): CaseRequest {
  const compare = [...((values.compare as string[] | undefined) ?? []), ...positionals];
  const episode = values.episode as string | undefined;
  const run = values.run as string | undefined;
  if (compare.length > 0) {
    if (compare.length !== 2) throw new UsageError(`--compare takes two run names (got ${compare.length})`);
    if (episode !== undefined || run !== undefined) throw new UsageError('give --compare A B alone, without --episode or --run');
    return { compare: { a: { runIds: [runIdOf(db, compare[0] as string)] }, b: { runIds: [runIdOf(db, compare[1] as string)] } } };
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${v(positionals[0] ?? '')}"`);
  if (episode !== undefined) {
    try {
      // --run beside --episode says which run's episode, as in whatif.
      return { episode: resolveEpisodeId(db, { ext_id: episode, run }) };
    } catch (e) {
      if (e instanceof NotFoundError) throw new UsageError(e.message);
      throw e;
    }
  }
  if (run !== undefined) return { run: runIdOf(db, run) };
  throw new UsageError('name what to share: --episode ID, --run NAME or --compare A B');
}

export const command: Command = {
  usage:
    'routelens export-html --db FILE (--episode ID [--run NAME] | --run NAME | --compare A B) --out case.html [--no-redact] [--redact REGEX ...]\n\n' +
    '  One HTML file that opens in any browser, offline: the conversation view with its timeline, models, costs and\n' +
    "  errors (an episode with its subagents), a run's summary and sessions, or a comparison's figures and tables.\n" +
    '  API keys, tokens, private keys, env secrets, bearer headers and home-folder user names become placeholders\n' +
    '  (--no-redact keeps everything; --redact REGEX adds a pattern, (?i) first for any case). Texts over 24,000\n' +
    '  characters keep their head and tail; the file says what was cut and where.',
  options: {
    db: { type: 'string' }, out: { type: 'string' }, episode: { type: 'string' }, run: { type: 'string' },
    compare: { type: 'string', multiple: true }, redact: { type: 'string', multiple: true }, 'no-redact': { type: 'boolean' },
  },
  allowPositionals: true,
  async run(values, positionals) {
    const path = requireDb(values);
    const out = values.out;
    if (typeof out !== 'string' || out === '') throw new UsageError('--out FILE.html is required');
    const redact = values['no-redact'] !== true;
    const patterns = (values.redact as string[] | undefined) ?? [];
    if (!redact && patterns.length > 0) throw new UsageError('--redact adds patterns to redaction: give it without --no-redact');
    let extra: RegExp[];
    try {
      extra = patterns.map(parseRedactPattern);
    } catch (e) {
      throw new UsageError(e instanceof Error ? e.message : String(e));
    }
    const db = openDatabase(path, { readonly: true });
    try {
      const request = requestOf(db, values, positionals);
      let viewer;
      try {
        viewer = readCaseViewer();
      } catch (e) {
        if (e instanceof CaseViewerMissingError) throw new UsageError(e.message);
        throw e;
      }
      const data = await gatherCase(createApi(db, ':memory:'), request, { redact, extra, version: routelensVersion(), database: path });
      const html = caseHtml(data, viewer);
      try {
        writeFileSync(out, html);
      } catch (e) {
        // A folder that is not there or not writable is the user's to fix.
        if (e instanceof Error && 'code' in e && typeof e.code === 'string') throw new UsageError(`cannot write ${out} (${e.code})`);
        throw e;
      }
      err(redact ? data.about.redaction.summary : 'not redacted (--no-redact): the file holds the log text as it was');
      if (data.about.cut.texts > 0) {
        err(`cut: ${data.about.cut.texts} long texts kept to their head and tail (${data.about.cut.chars.toLocaleString('en-US')} characters left out)`);
      }
      if (data.about.episodes_left_out > 0) err(`listed only: ${data.about.episodes_left_out} sessions of the run (the first ones are in full)`);
      err(`wrote ${out} (${Buffer.byteLength(html).toLocaleString('en-US')} bytes)`);
      return 0;
    } finally {
      db.close();
    }
  },
};
