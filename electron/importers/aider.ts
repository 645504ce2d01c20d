/**
 * Aider's chat history (`.aider.chat.history.md`): markdown that Aider appends to, one session after another.
 * Read line by line; one episode per session that has at least one model reply with a `> Tokens:` line
 * (aiderSession.ts). A session without one (Aider started and quit, `--show-repo`, only commands, a reply cut
 * off by ^C before its Tokens line) records no model call: it is skipped and counted in one warning. Lines
 * before the first session header (a history whose start was cut) belong to no session and are skipped.
 * Episode id: the session's start time (`2024-08-05 19:33:02`, with `#2`… for sessions started in the same
 * second). Aider logs no outcome.
 */
import { basename } from 'node:path';
import { CanonicalEpisode, describeIssue } from '../../shared/canonical.ts';
import { AiderValueError, SESSION_START } from './aiderLines.ts';
import { AIDER_FORMAT, AiderSession } from './aiderSession.ts';
import { readLines } from './lineReader.ts';
import { ImportError, type ImportContext, type Importer } from './types.ts';

/** Aider writes no long lines but pasted files can make one; this bounds memory per line. */
const MAX_LINE_BYTES = 16 * 1024 * 1024;

export const aiderImporter: Importer = {
  format: AIDER_FORMAT,
  expects: 'an Aider chat history: markdown with "# aider chat started at YYYY-MM-DD HH:MM:SS" session headers',

  detect(head, fileName) {
    // Aider's own name helps when a long first session pushes the header past the head (a cut history).
    if (fileName.endsWith('.aider.chat.history.md') && /^(#|>|-\*-)/.test(head)) return true;
    return /^# aider chat started at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d/m.test(head);
  },

  async *read(file: string, ctx: ImportContext) {
    let session: AiderSession | null = null;
    const seen = new Map<string, number>();
    let skipped = 0;
    let orphanTokens = 0;
    let unknownModel = 0;

    const finish = (s: AiderSession): CanonicalEpisode | null => {
      if (s.turnCount === 0) {
        skipped++;
        return null;
      }
      unknownModel += s.unknownModel;
      const n = (seen.get(s.startedAt) ?? 0) + 1;
      seen.set(s.startedAt, n);
      const id = n === 1 ? s.startedAt : `${s.startedAt} #${n}`;
      const parsed = CanonicalEpisode.safeParse(s.toEpisode(id, ctx.runName));
      if (!parsed.success) throw new ImportError(file, s.lineNo, describeIssue(parsed.error));
      return parsed.data;
    };

    for await (const { lineNo, text } of readLines(file, { maxLineBytes: MAX_LINE_BYTES, onBytes: ctx.onBytes })) {
      const line = text.trimEnd();
      const start = SESSION_START.exec(line);
      if (start) {
        const done = session && finish(session);
        if (done) yield done;
        session = new AiderSession(start[1] ?? '', lineNo);
        continue;
      }
      if (!session) {
        if (line.startsWith('> Tokens:')) orphanTokens++;
        continue;
      }
      try {
        session.feed(text, lineNo);
      } catch (err) {
        if (err instanceof AiderValueError) throw new ImportError(file, lineNo, err.message);
        throw err;
      }
    }
    if (!session) throw new ImportError(file, 1, 'no "# aider chat started at" session header');
    const last = finish(session);
    if (last) yield last;
    const name = basename(file);
    if (skipped) ctx.warn(`${name}: ${skipped} session(s) without a model reply (no "> Tokens:" line) skipped`);
    if (orphanTokens) ctx.warn(`${name}: ${orphanTokens} "> Tokens:" line(s) before the first session header skipped`);
    if (unknownModel) ctx.warn(`${name}: ${unknownModel} reply(ies) in sessions that announce no model: model "unknown"`);
  },
};
