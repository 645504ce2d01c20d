/**
 * A big canonical file imported into the store on every core: the file is cut into pieces of whole lines, and
 * range threads (rangeWorker.ts) parse, check, resolve and encode them while the main thread reads ahead and sends.
 * What depends on the file's order stays on the main thread and is decided piece by piece, in order: duplicate
 * episodes, sessions (a child's root), each episode's place in the file, the error types' ids, runs' policies, and
 * which refusal comes first. The rows equal the direct path's (directRows.ts): the same checks, the same writer,
 * the same row code. What the direct path would also settle, a child whose parent comes in a later piece or an
 * episode twice, throws StageInstead, and the file is read again through staging, as the direct path does.
 */
import { open } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { MAX_LINE_BYTES } from '../../../importers/canonical.ts';
import { StageInstead, type ImportedFile, type WholeRead } from '../../../importers/pipeline.ts';
import { ImportError } from '../../../importers/types.ts';
import { startWorker } from '../../../startWorker.ts';
import {
  emptySummary, episodeKey, noteRun, rootSession, sessionName,
  type FileSummary, type RowSink, type SessionEntry, type SessionEpisode, type SessionIndex, type ShardedTable,
} from './episodeRows.ts';
import type { FromRangeThread, PieceRead, RangeWorkerData, ToRangeThread } from './rangeProtocol.ts';
import { StoreError } from '../../storeUrl.ts';
import { settleWaiting } from './directRows.ts';
import { unstorable } from './rowBinary.ts';

/** Pieces of about this size: a few thousand turns, so each thread holds little and the threads take turns often. */
export const DEFAULT_PIECE_BYTES = 4 * 2 ** 20;
/** Smaller files are read on the main thread: starting the threads costs more than they would save. */
export const DEFAULT_THREADED_MIN_BYTES = 32 * 2 ** 20;

/**
 * `ROUTELENS_IMPORT_THREADS`: range threads for big canonical files (1: none). By default one per core, at most 4,
 * on a machine of 4 cores or more; none on fewer. Each thread costs 150–240 MB, and on 2 cores shared with the
 * store's servers two threads made a 5M-turn import 1.12 times as fast for 2.2 times the memory (docs/scale-out.md).
 */
export function importThreadsFromEnvironment(env: NodeJS.ProcessEnv = process.env): number {
  const given = env.ROUTELENS_IMPORT_THREADS;
  if (given === undefined || given === '') return availableParallelism() >= 4 ? Math.min(availableParallelism(), 4) : 1;
  const n = Number(given);
  if (!Number.isInteger(n) || n < 1 || n > 64) throw new StoreError(`ROUTELENS_IMPORT_THREADS is "${given}": give a whole number of threads, 1 to 64`);
  return n;
}

/** Where a threaded file's rows go: encoded rows as well as rows one by one. */
export interface EncodedSink extends RowSink {
  addEncoded(table: ShardedTable, shard: number, rows: number, chunks: Buffer[]): void;
}

interface Received {
  m: FromRangeThread;
  worker: Worker;
}

/** The import's range threads, started when a file first needs them; one file at a time. */
export class RangeThreads {
  private workers: Worker[] | null = null;
  private fileNo = 0;
  /** The file being read, or null between files: what threads say of any other is dropped. */
  private current: number | null = null;
  private queue: Received[] = [];
  private wake: (() => void) | null = null;
  private crash: Error | null = null;

  constructor(private readonly count: number, private readonly data: RangeWorkerData) {}

  /** The threads, told that file `fileNo` begins. */
  begin(file: Omit<Extract<ToRangeThread, { type: 'file' }>, 'type' | 'fileNo'>): { fileNo: number; workers: Worker[] } {
    this.workers ??= Array.from({ length: this.count }, () => {
      const w = startWorker('rangeWorker', new URL('./rangeWorker.ts', import.meta.url), this.data);
      w.on('message', (m: FromRangeThread) => this.receive({ m, worker: w }));
      w.on('error', (e) => this.fail(e));
      w.on('exit', (code) => {
        if (code !== 0) this.fail(new Error(`an import thread stopped (exit code ${code})`));
      });
      return w;
    });
    this.fileNo++;
    this.current = this.fileNo;
    this.queue = [];
    for (const w of this.workers) w.postMessage({ type: 'file', fileNo: this.fileNo, ...file } satisfies ToRangeThread);
    return { fileNo: this.fileNo, workers: this.workers };
  }

  /** The threads drop what they hold of the file. */
  end(fileNo: number): void {
    for (const w of this.workers ?? []) w.postMessage({ type: 'end', fileNo } satisfies ToRangeThread);
    this.current = null;
    this.queue = [];
  }

  /** The next message about the current file. */
  async next(): Promise<Received> {
    for (;;) {
      if (this.crash) throw this.crash;
      const r = this.queue.shift();
      if (r) return r;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  async close(): Promise<void> {
    const workers = this.workers ?? [];
    this.workers = null;
    for (const w of workers) w.removeAllListeners('exit');
    await Promise.all(workers.map((w) => w.terminate()));
  }

  private receive(r: Received): void {
    // A piece of an abandoned file may still be read after the file's fault: nothing it says counts.
    if (r.m.fileNo !== undefined && r.m.fileNo !== this.current) return;
    if (r.m.type === 'crashed') {
      const e = new Error(`an import thread failed: ${r.m.message}`);
      if (r.m.stack) e.stack = r.m.stack;
      this.fail(e);
      return;
    }
    this.queue.push(r);
    this.wakeUp();
  }

  private fail(e: Error): void {
    this.crash ??= e;
    this.wakeUp();
  }

  private wakeUp(): void {
    const w = this.wake;
    this.wake = null;
    w?.();
  }
}

/**
 * The file's pieces: whole lines, about `pieceBytes` each, each in memory of its own (moved to a thread, not copied).
 * A line longer than `maxLineBytes` ends the pieces with itself, for its thread to refuse at its line.
 */
export async function* piecesOf(path: string, pieceBytes: number, maxLineBytes: number, onBytes?: (bytes: number) => void): AsyncGenerator<Uint8Array> {
  const fh = await open(path, 'r');
  try {
    let carry = new Uint8Array(0);
    let read = 0;
    for (;;) {
      // A long line is read in ever larger pieces, not copied again for every few megabytes of it.
      const want = Math.max(pieceBytes, carry.length);
      const buf = new Uint8Array(carry.length + want);
      buf.set(carry);
      const { bytesRead } = await fh.read(buf, carry.length, want, null);
      read += bytesRead;
      onBytes?.(read);
      const filled = carry.length + bytesRead;
      if (bytesRead === 0) {
        if (filled > 0) yield buf.subarray(0, filled);
        return;
      }
      const nl = buf.lastIndexOf(10, filled - 1);
      if (nl === -1) {
        if (filled > maxLineBytes + 1) {
          yield buf.subarray(0, filled);
          return;
        }
        carry = buf.subarray(0, filled);
        continue;
      }
      carry = buf.slice(nl + 1, filled);
      yield buf.subarray(0, nl + 1);
    }
  } finally {
    await fh.close();
  }
}

export interface ThreadedRead {
  importer: { format: string };
  runName?: string;
  onBytes: (bytes: number) => void;
  counted: (episodes: number, turns: number) => void;
}

/** One canonical file's rows from the range threads; the same life as a DirectFile (finish, forget). */
export class ThreadedFile {
  readonly summary: FileSummary = emptySummary();
  private readonly keys = new Set<number>();
  private readonly settledWithout = new Set<string>();
  private readonly before = new Map<number, { rootKey: number; split: string | null } | undefined>();
  private readonly errorTypeIds = new Map<string, number>();
  private nodes = 0;
  private edges = 0;
  private lines = 0;
  private repairedStrings = 0;
  private readonly modelsAdded: string[] = [];
  private readonly modelsListPriced: string[] = [];

  constructor(
    readonly importId: number,
    readonly file: ImportedFile,
    private readonly threads: RangeThreads,
    private readonly index: SessionIndex,
    private readonly sink: EncodedSink,
    /** The id the file's first new error type gets, as the staging database would give it. */
    private nextErrorTypeId: number,
    private readonly pieceBytes = DEFAULT_PIECE_BYTES,
  ) {}

  async read(path: string, how: ThreadedRead): Promise<WholeRead> {
    const { fileNo, workers } = this.threads.begin({ path, runName: how.runName, importId: this.importId });
    const pieces = piecesOf(path, this.pieceBytes, MAX_LINE_BYTES, how.onBytes);
    const idle = [...workers];
    /** Pieces read by a thread, waiting for the pieces before them to be placed. */
    const read = new Map<number, Received>();
    /** Pieces placed whose rows have not come back. */
    const encoding = new Set<number>();
    let handedOut = 0;
    let placing = 0;
    let busy = 0;
    let exhausted = false;
    /**
     * The file's first fault so far: a value the store cannot hold in piece i (rank 2i), or a line refused in it or
     * an episode that sends the file through staging (rank 2i + 1: after every earlier piece's episodes are written).
     */
    let fault: { rank: number; error: Error } | null = null;
    const faulty = (rank: number, error: Error): void => {
      if (fault === null || rank < fault.rank) fault = { rank, error };
    };
    try {
      for (;;) {
        while (idle.length > 0 && !exhausted && fault === null) {
          const p = await pieces.next();
          if (p.done) {
            exhausted = true;
            break;
          }
          const w = idle.pop() as Worker;
          w.postMessage({ type: 'piece', fileNo, index: handedOut, bytes: p.value, first: handedOut === 0 } satisfies ToRangeThread, [p.value.buffer as ArrayBuffer]);
          handedOut++;
          busy++;
        }
        // A fault is the file's first once every episode before it has been written without one.
        const first = fault as { rank: number; error: Error } | null;
        if (first !== null && ![...encoding].some((i) => 2 * i < first.rank)) throw first.error;
        if (busy === 0) break;
        const { m, worker } = await this.threads.next();
        if (m.type === 'read') {
          read.set(m.index, { m, worker });
          for (let r = read.get(placing); r && fault === null; r = read.get(placing)) {
            read.delete(placing);
            const piece = r.m as PieceRead;
            const { sessions, stage } = await this.sessions(piece);
            // The episodes before the one that needs staging are still written: one of them may hold a value the store
            // cannot, which one thread would report first.
            if (stage) faulty(2 * placing + 1, new StageInstead());
            if (piece.refused) faulty(2 * placing + 1, new ImportError(path, this.lines + piece.refused.line, piece.refused.reason));
            this.place(piece, r.worker, fileNo, sessions);
            encoding.add(placing);
            placing++;
          }
        } else if (m.type === 'rows') {
          for (const t of m.tables) this.sink.addEncoded(t.table, t.shard, t.rows, t.chunks.map((c) => Buffer.from(c.buffer, c.byteOffset, c.byteLength)));
          encoding.delete(m.index);
          busy--;
          idle.push(worker);
          how.counted(this.summary.episodes, this.summary.turns);
          if (this.sink.full()) await this.sink.flush();
        } else if (m.type === 'unstorable') {
          encoding.delete(m.index);
          busy--;
          faulty(2 * m.index, unstorable(this.file.shown, m.episode, m.message));
        }
      }
    } finally {
      this.threads.end(fileNo);
      await pieces.return(undefined);
    }
    return {
      episodes: this.summary.episodes, turns: this.summary.turns, repairedStrings: this.repairedStrings,
      modelsAdded: this.modelsAdded, modelsListPriced: this.modelsListPriced, runs: this.summary.runs.map((r) => r.run),
    };
  }

  /** Every row is in the sink by the time read() returns. */
  async finish(): Promise<FileSummary> {
    return this.summary;
  }

  /** The file is abandoned: its episodes are no parents for later files. */
  forget(): void {
    for (const [key, entry] of this.before) {
      if (entry) this.index.known.set(key, entry);
      else this.index.known.delete(key);
    }
    this.before.clear();
  }

  /**
   * The session of each of a piece's episodes, as DirectFile settles them, registered with the import; up to the
   * first that needs the staging path (`stage`), if one does.
   */
  private async sessions(m: PieceRead): Promise<{ sessions: SessionEntry[]; stage: boolean }> {
    const out: SessionEntry[] = [];
    let stage = false;
    const set = (i: number, s: SessionEntry): void => {
      if (!this.before.has(s.key)) this.before.set(s.key, this.index.known.get(s.key));
      this.index.known.set(s.key, { rootKey: s.rootKey, split: s.split });
      this.summary.episodeKeys.push(s.key);
      out[i] = s;
    };
    const waiting: SessionEpisode[] = [];
    for (const [i, x] of m.episodes.entries()) {
      if (this.keys.has(x.key) || this.settledWithout.has(sessionName(x.run, x.ext))) {
        stage = true;
        break;
      }
      this.keys.add(x.key);
      noteRun(this.summary, { run: x.run, source_format: this.file.format, source_path: this.file.shown, policy_name: x.policyName, policy_kind: x.policyKind });
      if (x.parent === null || x.parent === x.ext) {
        set(i, rootSession(x.key, x.split));
        continue;
      }
      const parent = this.index.known.get(episodeKey(x.run, x.parent));
      if (parent) set(i, { key: x.key, rootKey: parent.rootKey, split: parent.split });
      else waiting.push({ id: i, run: x.run, ext_id: x.ext, parent_ext_id: x.parent, split: x.split });
    }
    if (waiting.length > 0) {
      // Children whose parents are not known yet: a parent later in the piece, or in the store; else standing alone.
      const sessions = await settleWaiting(waiting, this.index, this.settledWithout);
      for (const e of waiting) set(e.id, sessions.get(e.id) as SessionEntry);
    }
    return { sessions: out, stage };
  }

  /** Tells the piece's thread where its episodes stand; the file's counts move past the piece. */
  private place(m: PieceRead, worker: Worker, fileNo: number, sessions: SessionEntry[]): void {
    const errorTypeIds = m.errorTypes.map((name) => {
      let id = this.errorTypeIds.get(name);
      if (id === undefined) this.errorTypeIds.set(name, (id = this.nextErrorTypeId++));
      return id;
    });
    const runPolicies = m.runs.map((run) => this.summary.runs.find((r) => r.run === run)?.policy_name ?? null);
    worker.postMessage({
      type: 'place', fileNo, index: m.index,
      placed: { sessions, episodesBefore: this.summary.episodes, nodesBefore: this.nodes, edgesBefore: this.edges, errorTypeIds, runPolicies },
    } satisfies ToRangeThread);
    this.nodes += m.nodes;
    this.edges += m.edges;
    this.lines += m.lines;
    this.repairedStrings += m.repairedStrings;
    this.summary.episodes += m.episodes.length;
    this.summary.turns += m.turns;
    this.modelsAdded.push(...m.modelsAdded);
    this.modelsListPriced.push(...m.modelsListPriced);
  }
}
