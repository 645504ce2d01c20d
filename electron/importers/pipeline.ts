/**
 * The import pipeline: expands folders, picks an importer per file (content first, registry order),
 * skips files already imported (content hash), and writes each file's episodes in one transaction, so
 * a bad or interrupted file leaves nothing behind. Reports per-file results and progress.
 */
import { openSync, readSync, closeSync, readdirSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { beginWrite, commitWrite, rollbackWrite, type WriteWait } from '../db/database.ts';
import type { Db } from '../db/dbHandle.ts';
import { EpisodeWriter, wellFormed, type ResolvedEpisode } from '../db/episodeWriter.ts';
import { reconciliationWarning } from '../db/logTotals.ts';
import { defaultErrorRules, type ErrorRules } from '../analysis/errorRules.ts';
import type { ExpectedStepsTable } from '../analysis/expectedSteps.ts';
import { closestFormatHint } from './closestFormat.ts';
import { whyIgnored, type IgnoredFile } from './ignoredFiles.ts';
import { IMPORTERS, importerByFormat } from './registry.ts';
import { decodeUtf16, utf16Head, UTF16_TEXT } from './textEncoding.ts';
import { ImportError, type Importer } from './types.ts';
import { changeSince, changedWhileImported, fileIdentity, hashFile, whatChanged } from './fileIdentity.ts';

export interface FileResult {
  path: string;
  status: 'imported' | 'skipped' | 'rejected';
  format: string | null;
  episodes: number;
  turns: number;
  /** For skipped and rejected files: why, as `file:line: reason` for rejections. */
  reason?: string;
  /** For imported files: the runs its episodes went into, in the order they first appear in it. */
  runs?: string[];
}

export interface ImportReport {
  files: FileResult[];
  warnings: string[];
  modelsAdded: string[];
  /** Every file found in a folder that was not read, with why (sidecars such as report.json, unknown formats). */
  ignored: IgnoredFile[];
}

export interface ImportProgress {
  file: string;
  filesDone: number;
  filesTotal: number;
  episodes: number;
  turns: number;
  fileBytesRead: number;
  fileBytes: number;
}

export interface ImportOptions {
  /**
   * How a file is named to the user, in the report, in messages and in the stored source path. Uploads from
   * the UI are read from a private temporary folder, but the user knows them by the path they dropped.
   */
  describePath?: (path: string) => string;
  format?: string;
  runName?: string;
  rules?: ErrorRules;
  /** N per task for the AEC targets (`--expected-steps`); the built-in table when absent. */
  expectedSteps?: ExpectedStepsTable;
  onProgress?: (p: ImportProgress) => void;
  /** Called about every second while another process holds the database's write lock (issue 16). */
  onWait?: (w: WriteWait) => void;
  /** False for a database nothing searches (the ClickHouse store's staging): its text is not indexed. Default true. */
  fullText?: boolean;
  /** Where else a file's content may already be (the ClickHouse store's ledger): the path it was imported from. */
  knownSource?: (hash: string) => Promise<string | undefined>;
  /**
   * Called with each file's rows written, before its transaction commits (the ClickHouse store ships them from
   * here); an ImportError rejects the file, any other error stops the import, and either leaves nothing behind.
   * 'discard': the rows now live elsewhere, so the transaction is rolled back and the file still counts as imported.
   */
  beforeCommit?: (file: ImportedFile & { sourceId: number; direct: boolean }) => Promise<void | 'discard'>;
  /**
   * Each episode resolved as the writer would store it, handed over instead of written (the ClickHouse store ships
   * it from here; models and error types are still created in the file's transaction). Throwing StageInstead
   * reads the file again from its start, written into the database (`direct` false in beforeCommit).
   */
  emit?: (episode: ResolvedEpisode, file: ImportedFile) => Promise<void>;
  /**
   * With `emit`: reads a whole file another way than episode by episode (the store's import threads, for a big
   * canonical file), or undefined to read it as usual. It throws as `emit` does (StageInstead included).
   */
  readWhole?: (path: string, file: ImportedFile, how: WholeReadContext) => Promise<WholeRead | undefined>;
}

export interface WholeReadContext {
  importer: Importer;
  runName?: string;
  onBytes: (bytes: number) => void;
  /** The file's episodes and turns so far, for progress. */
  counted: (episodes: number, turns: number) => void;
}

/** A file read by readWhole: its counts, and the models its episodes added (reported as the writer's are). */
export interface WholeRead {
  episodes: number;
  turns: number;
  repairedStrings: number;
  modelsAdded: string[];
  modelsListPriced: string[];
  /** The runs its episodes went into, in the order they first appear. */
  runs: string[];
}

/** A file being imported, as a ledger elsewhere names it. */
export interface ImportedFile {
  hash: string;
  shown: string;
  format: string;
}

/** Thrown by `emit` when a file needs the whole-file view of a database (the episodes shipped so far are dropped). */
export class StageInstead extends Error {}

const HEAD_BYTES = 64 * 1024;
/** Folders never searched: version control and package stores hold no logs, only a great many files. */
const SKIP_DIRS = new Set(['node_modules', '.git', '.hg', '.svn']);

interface Candidate {
  path: string;
  root: string;
  explicit: boolean;
}

function expand(paths: string[], ignored: IgnoredFile[]): Candidate[] {
  const out: Candidate[] = [];
  // A folder's own files come before its subfolders: a Claude Code session (`<id>.jsonl`) is read before the
  // subagents in `<id>/subagents/`, and the run is named after the session's file.
  const walk = (dir: string, root: string): void => {
    const entries = readdirSync(dir, { withFileTypes: true }).sort(
      (a, b) => Number(a.isDirectory()) - Number(b.isDirectory()) || a.name.localeCompare(b.name),
    );
    for (const entry of entries) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (SKIP_DIRS.has(entry.name)) ignored.push({ path: full, reason: 'folder not searched (version control or packages)' });
        else walk(full, root);
      } else if (entry.isFile()) out.push({ path: full, root, explicit: false });
      // Hidden files are read like any other: Aider writes `.aider.chat.history.md`.
      else if (entry.isSymbolicLink()) ignored.push({ path: full, reason: 'symbolic link inside a folder (not followed)' });
      else ignored.push({ path: full, reason: 'not a regular file' });
    }
  };
  for (const p of paths) {
    const abs = resolve(p);
    let st;
    try {
      st = statSync(abs);
    } catch {
      throw new ImportError(p, 0, 'no such file or folder');
    }
    if (st.isDirectory()) walk(abs, abs);
    else out.push({ path: abs, root: abs, explicit: true });
  }
  return out;
}

/**
 * What a path is when it is not a regular file, or null when it is one. Reading a named pipe or a device
 * (`/dev/zero`) never ends, so such a path is refused before it is opened (issue 16). Symlinks are followed:
 * what counts is the file they lead to.
 */
export function notRegularFile(path: string): string | null {
  let st;
  try {
    st = statSync(path);
  } catch {
    return 'no such file';
  }
  if (st.isFile()) return null;
  if (st.isDirectory()) return 'a folder';
  if (st.isFIFO()) return 'a named pipe (FIFO)';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** The first 64 KiB of a file as text: what detection is given. */
export function readHead(path: string): string {
  return readHeadBytes(path).toString('utf8');
}

function readHeadBytes(path: string): Buffer {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(HEAD_BYTES);
    const n = readSync(fd, buf, 0, HEAD_BYTES, 0);
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

/** A list of model names in one line however many there are (a log may name thousands). */
function nameList(models: string[]): string {
  const SHOWN = 10;
  const names = models.slice(0, SHOWN).map((m) => `"${m}"`).join(', ');
  return models.length > SHOWN ? `${names} and ${models.length - SHOWN} more` : names;
}

/**
 * Models added to the database: priced from @pydantic/genai-prices when the library knows them, else without a
 * price, which makes every turn of theirs without a logged cost unknown (never $0).
 */
function modelsAddedWarning(added: string[], listPriced: string[]): string[] {
  const priced = new Set(listPriced);
  const unpriced = added.filter((m) => !priced.has(m));
  const out: string[] = [];
  if (listPriced.length > 0) {
    out.push(listPriced.length === 1
      ? `model "${listPriced[0]}" is not in models/pool.json: priced from @pydantic/genai-prices`
      : `${listPriced.length} models are not in models/pool.json, priced from @pydantic/genai-prices: ${nameList(listPriced)}`);
  }
  if (unpriced.length > 0) {
    out.push(unpriced.length === 1
      ? `model "${unpriced[0]}" is not in models/pool.json: added without prices (turns without a logged cost have an unknown cost)`
      : `${unpriced.length} models are not in models/pool.json, added without prices (turns without a logged cost have an unknown cost): ${nameList(unpriced)}`);
  }
  return out;
}

/**
 * A warning as `shown: message`, or `shown:line: message` when the importer located it. Importers may name the
 * file themselves (`file:12: …`, `name: …`); the user knows it by its shown name, given once.
 */
function locateWarning(message: string, path: string, shown: string): string {
  for (const name of [path, basename(path)]) {
    if (message.startsWith(`${name}:`)) return `${shown}:${message.slice(name.length + 1)}`;
  }
  return `${shown}: ${message}`;
}

export function detectImporter(head: string, name: string): Importer | null {
  return IMPORTERS.find((imp) => imp.detect(head, name)) ?? null;
}

export async function importPaths(db: Db, paths: string[], options: ImportOptions = {}): Promise<ImportReport> {
  const forced = options.format && options.format !== 'auto' ? importerByFormat(options.format) : null;
  if (options.format && options.format !== 'auto' && !forced) {
    throw new ImportError(options.format, 0, `unknown format (known: auto, ${IMPORTERS.map((i) => i.format).join(', ')})`);
  }
  const writer = new EpisodeWriter(db, options.rules ?? defaultErrorRules(), options.expectedSteps, options.fullText ?? true);
  const report: ImportReport = { files: [], warnings: [], modelsAdded: [], ignored: [] };
  const candidates = expand(paths, report.ignored);
  for (const i of report.ignored) i.path = wellFormed(options.describePath?.(i.path) ?? i.path).value;
  const findSource = db.prepare('SELECT path FROM sources WHERE content_hash = ?').pluck();
  const insertSource = db.prepare(
    'INSERT INTO sources (content_hash, path, format, imported_at, episodes) VALUES (?, ?, ?, ?, 0)',
  );
  const setSourceCount = db.prepare('UPDATE sources SET episodes = ? WHERE id = ?');
  let totalEpisodes = 0;
  let totalTurns = 0;

  for (const [index, c] of candidates.entries()) {
    // An upload's name comes from a request body, where "\ud800" is a lone surrogate: stored as valid UTF-8.
    const shown = wellFormed(options.describePath?.(c.path) ?? c.path).value;
    const kind = notRegularFile(c.path);
    if (kind !== null) {
      // Checked before the file is opened, hashed or read, also with --format.
      report.files.push({
        path: shown, status: 'rejected', format: null, episodes: 0, turns: 0,
        reason: `${shown}:1: ${kind === 'no such file' ? kind : `not a regular file: ${kind}`}`,
      });
      continue;
    }
    // Taken before the head is read and the file hashed: it must be the same file once the importer has read it.
    const before = fileIdentity(c.path);
    if (before === null) {
      report.files.push({ path: shown, status: 'rejected', format: null, episodes: 0, turns: 0, reason: `${shown}:1: no such file` });
      continue;
    }
    const size = Number(before.size);
    let episodes = 0;
    let turns = 0;
    const progress = (bytes: number): void =>
      options.onProgress?.({
        file: shown, filesDone: index, filesTotal: candidates.length, episodes: totalEpisodes + episodes,
        turns: totalTurns + turns, fileBytesRead: bytes, fileBytes: size,
      });
    progress(0);
    const headBytes = size === 0 ? Buffer.alloc(0) : readHeadBytes(c.path);
    const head = headBytes.toString('utf8');
    const importer = forced ?? detectImporter(head, basename(c.path));
    const utf16 = utf16Head(headBytes);
    // Without a byte order mark the NUL pattern is a guess: a file some importer takes as it is stays its.
    if (utf16 && (utf16.bom || !importer?.detect(head, basename(c.path)))) {
      if (c.explicit || forced || detectImporter(decodeUtf16(headBytes, utf16), basename(c.path))) {
        report.files.push({ path: shown, status: 'rejected', format: null, episodes: 0, turns: 0, reason: `${shown}:1: ${UTF16_TEXT}` });
      } else {
        report.ignored.push({ path: shown, reason: 'UTF-16 text, and not a log RouteLens reads once decoded' });
      }
      continue;
    }
    if (!importer) {
      if (c.explicit) {
        report.files.push({
          path: shown, status: 'rejected', format: null, episodes: 0, turns: 0,
          reason: `${shown}:1: not a log RouteLens reads (it reads ${IMPORTERS.map((i) => i.format).join(', ')}); ${closestFormatHint(head, IMPORTERS)}`,
        });
      } else {
        report.ignored.push({ path: shown, reason: whyIgnored(basename(c.path), head, size, IMPORTERS) });
      }
      continue;
    }
    const partner = c.explicit ? null : (importer.readWith?.(c.path) ?? null);
    if (partner !== null) {
      report.ignored.push({ path: shown, reason: `read with ${basename(partner)} beside it (${importer.format})` });
      continue;
    }
    const hash = await hashFile(c.path);
    const previous = (findSource.get(hash) as string | undefined) ?? (await options.knownSource?.(hash));
    if (previous !== undefined) {
      report.files.push({
        path: shown, status: 'skipped', format: importer.format, episodes: 0, turns: 0,
        reason: previous === shown ? 'already imported' : `already imported (same content as ${previous})`,
      });
      continue;
    }

    const fileWarnings: string[] = [];
    // One writer at a time: wait (with progress) for another process's import, then look again — it may
    // have been importing this very file (issue 16: the same file imported twice at once is imported once).
    await beginWrite(db, { what: 'import', onWait: options.onWait });
    const alreadyThere = findSource.get(hash) as string | undefined;
    if (alreadyThere !== undefined) {
      rollbackWrite(db);
      report.files.push({
        path: shown, status: 'skipped', format: importer.format, episodes: 0, turns: 0,
        reason: alreadyThere === shown ? 'already imported' : `already imported (same content as ${alreadyThere})`,
      });
      continue;
    }
    const file: ImportedFile = { hash, shown, format: importer.format };
    /** Set once the file is refused for changing: its refusal already says so. */
    let refusedAsChanged = false;
    try {
      let sourceId = Number(insertSource.run(hash, shown, importer.format, new Date().toISOString()).lastInsertRowid);
      const ctx = {
        root: c.root,
        runName: options.runName,
        warn: (m: string) => fileWarnings.push(locateWarning(m, c.path, shown)),
        onBytes: progress,
      };
      let repairedStrings = 0;
      const runs = new Set<string>();
      /** Episodes already imported from another file with the same content, skipped (not counted as imported). */
      const copies: { id: string; of: string }[] = [];
      let replaced = 0;
      // The log's own totals against the episode as stored: a difference over 0.5% is said, never corrected.
      const reconciled = (id: string, r: ResolvedEpisode['reconciliation'] | undefined): void => {
        const differs = reconciliationWarning(id, r ?? null);
        if (differs) ctx.warn(differs);
      };
      const read = async (emit: ImportOptions['emit']): Promise<void> => {
        const whole = emit && (await options.readWhole?.(c.path, file, {
          importer, runName: options.runName, onBytes: progress,
          counted: (e, t) => {
            episodes = e;
            turns = t;
          },
        }));
        if (whole) {
          episodes = whole.episodes;
          turns = whole.turns;
          repairedStrings += whole.repairedStrings;
          for (const run of whole.runs) runs.add(run);
          writer.models.addedElsewhere(whole.modelsAdded, whole.modelsListPriced);
          return;
        }
        for await (const ep of importer.read(c.path, ctx)) {
          if (emit) {
            const resolved = writer.resolve(ep);
            repairedStrings += resolved.repairedStrings;
            await emit(resolved, file);
            reconciled(ep.episode_id, resolved.reconciliation);
          } else {
            const written = writer.write(ep, importer.format, shown, sourceId);
            repairedStrings += written.repairedStrings;
            if (written.copyOf !== null) {
              copies.push({ id: ep.episode_id, of: written.copyOf });
              continue;
            }
            if (written.replaced) replaced++;
            reconciled(ep.episode_id, written.reconciliation);
          }
          runs.add(wellFormed(ep.run).value); // as stored, a lone surrogate repaired
          episodes++;
          turns += ep.turns.length;
        }
      };
      let direct = options.emit !== undefined;
      try {
        await read(options.emit);
      } catch (err) {
        if (!(err instanceof StageInstead)) throw err;
        // From the start again, into the database: the file's transaction begins anew, as if first read so.
        rollbackWrite(db);
        writer.rollback();
        await beginWrite(db, { what: 'import', onWait: options.onWait });
        sourceId = Number(insertSource.run(hash, shown, importer.format, new Date().toISOString()).lastInsertRowid);
        fileWarnings.length = 0;
        copies.length = 0;
        replaced = 0;
        repairedStrings = 0;
        runs.clear();
        episodes = 0;
        turns = 0;
        direct = false;
        await read(undefined);
      }
      // Before anything is committed (or shipped by beforeCommit): the rows read must be the bytes hashed.
      const changed = await whatChanged(c.path, before, hash);
      if (changed !== null) {
        refusedAsChanged = true;
        throw new ImportError(c.path, 0, changedWhileImported(changed));
      }
      if (episodes === 0 && copies.length > 0) {
        rollbackWrite(db);
        writer.rollback();
        report.files.push({
          path: shown, status: 'skipped', format: importer.format, episodes: 0, turns: 0,
          reason: `already imported (its ${copies.length === 1 ? 'episode is' : `${copies.length} episodes are`} the same as in ${copies[0]?.of})`,
        });
        continue;
      }
      if (episodes === 0) throw new ImportError(c.path, 1, 'no episodes in this file');
      if (copies.length > 0) {
        ctx.warn(`${copies.length} episode(s) skipped: the same as already imported from ${copies[0]?.of} (${nameList(copies.map((x) => x.id))})`);
      }
      if (replaced > 0) ctx.warn(`${replaced} episode(s) imported earlier from this file replaced by their new content`);
      if (repairedStrings > 0) {
        ctx.warn(`${repairedStrings} string(s) held lone UTF-16 surrogates (such as "\\ud800"): stored with U+FFFD in their place`);
      }
      setSourceCount.run(episodes, sourceId);
      writer.flushText();
      if ((await options.beforeCommit?.({ ...file, sourceId, direct })) === 'discard') {
        rollbackWrite(db);
        writer.models.commit(); // the models it named are still reported as added
        writer.rollback();
      } else {
        commitWrite(db);
        writer.commit();
      }
      totalEpisodes += episodes;
      totalTurns += turns;
      report.warnings.push(...fileWarnings);
      report.files.push({ path: shown, status: 'imported', format: importer.format, episodes, turns, runs: [...runs] });
    } catch (err) {
      // Only when a transaction is still open: a failed COMMIT or a damaged file may already have ended it,
      // and "cannot rollback - no transaction is active" must not hide the real error.
      rollbackWrite(db);
      writer.rollback();
      if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE' && String((err as Error).message).includes('sources.content_hash')) {
        report.files.push({ path: shown, status: 'skipped', format: importer.format, episodes: 0, turns: 0, reason: 'already imported' });
        continue;
      }
      // Only the file's own faults are rejections; anything else is a bug and stops the import.
      if (!(err instanceof ImportError)) throw err;
      // A file cut or written mid-line while read fails to parse; the cause the user can act on is the change.
      const changed = refusedAsChanged ? null : changeSince(before, c.path);
      const refusal = changed === null ? err : new ImportError(c.path, 0, changedWhileImported(changed));
      // Importers name the file they read; the user knows it by its shown name.
      let reason = refusal.file === c.path ? `${shown}:${refusal.line}: ${refusal.reason}` : refusal.message;
      // A format forced on a file it does not fit: say what that format looks for.
      if (forced && !refusedAsChanged && changed === null && !forced.detect(head, basename(c.path))) reason += ` (--format ${forced.format} expects ${forced.expects})`;
      report.files.push({ path: shown, status: 'rejected', format: importer.format, episodes: 0, turns: 0, reason });
    }
  }
  report.modelsAdded = [...new Set(writer.models.added)];
  report.warnings.push(...modelsAddedWarning(report.modelsAdded, [...new Set(writer.models.listPriced)]));
  options.onProgress?.({
    file: '', filesDone: candidates.length, filesTotal: candidates.length, episodes: totalEpisodes, turns: totalTurns,
    fileBytesRead: 0, fileBytes: 0,
  });
  return report;
}
