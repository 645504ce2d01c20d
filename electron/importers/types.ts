/**
 * The importer interface (STYLE §5): each log format is one module with a cheap `detect` on the first
 * bytes of a file and a streaming `read` that yields canonical `routelens/v1` episodes. Importers never
 * touch the database; the import pipeline (pipeline.ts) writes what they yield, one transaction per file.
 */
import type { CanonicalEpisode } from '../../shared/canonical.ts';

/** A rejected input, always reported as `file:line: reason`. */
export class ImportError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly reason: string,
  ) {
    super(`${file}:${line}: ${reason}`);
    this.name = 'ImportError';
  }
}

export interface ImportContext {
  /** The path as the user gave it (file or folder), to locate sidecar files such as report.json. */
  readonly root: string;
  /** `--run NAME`: overrides the run name the importer would choose. */
  readonly runName?: string;
  /** Non-fatal findings (a legacy format, a guessed field) shown to the user after the import. */
  warn(message: string): void;
  /** Bytes of the current file read so far, for progress on big files (optional to call). */
  onBytes?(bytes: number): void;
}

export interface Importer {
  /** Stable id, also the value of `--format` and of `runs.source_format`. */
  readonly format: string;
  /**
   * What a file of this format looks like, in a few words, for the message when `--format` forces it on a
   * file it does not fit ("expected a Claude Code session: JSON Lines with sessionId and message.model").
   */
  readonly expects: string;
  /**
   * Names of files this format reads beside its trajectories (labels, configs), so a folder import lists them
   * as sidecars rather than as unknown files. Matched against the file's base name.
   */
  readonly sidecars?: readonly RegExp[];
  /**
   * For a file this format reads only together with another beside it (a Cline task's api_conversation_history.json,
   * read with its ui_messages.json): that other file, when it is there and of this format. A folder import then lists
   * this file as read with the other instead of importing the same episode twice; named on its own, it is read.
   */
  readWith?(file: string): string | null;
  /** True when this importer handles the file. Must be cheap: looks at most at `head` (≤ 64 KiB) and the name. */
  detect(head: string, fileName: string): boolean;
  /** Streams the file's episodes. Throws ImportError for a bad file; yields nothing from it then. */
  read(file: string, ctx: ImportContext): AsyncIterable<CanonicalEpisode>;
  /**
   * For a format written a line at a time as the agent works: the same reading as `read`, kept open between
   * reads, so a followed file's new lines are read without reading it again from its start (issue 36). Null for a
   * file of the format that is not written so (a whole JSON document): it is read again whole when it changes.
   */
  follow?(file: string, ctx: ImportContext): LineFold | null;
}

/**
 * An importer's reading of a line-oriented file, given its lines in order as the file grows. `read` of such a
 * format is this fold over every line of the file, so a file followed line by line ends as a one-shot import of it.
 */
export interface LineFold {
  /** The longest line this format takes (a longer one is the file's fault). */
  readonly maxLineBytes: number;
  /** The next line (numbered from 1, text without its line ending). Throws ImportError for a bad line. */
  line(lineNo: number, text: string): Promise<void>;
  /**
   * The episodes as the lines so far make them; changes nothing, so it may be asked after any line. Throws
   * ImportError when they make none yet (a session with no model call so far).
   */
  episodes(): Promise<CanonicalEpisode[]>;
  /** Another file these episodes also read (a sidechain's parent session): when it changes, ask again. */
  dependsOn(): string | null;
}
