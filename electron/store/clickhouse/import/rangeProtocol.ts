/**
 * What the store import's main thread and its range threads (rangeWorker.ts) say to each other about one
 * canonical file split into pieces of whole lines. A piece is read in two steps: the thread parses, checks and
 * resolves it and reports what the main thread must decide in file order (each episode's key and parent, the
 * error types and runs it names, its counts); the main thread answers with those decisions (sessions, places in the
 * file, error-type ids, runs' policies) and the thread then encodes the piece's rows. Every message names its file
 * (`fileNo`) so that what a thread says about an abandoned file is ignored.
 */
import type { ExpectedStepsTable } from '../../../analysis/expectedSteps.ts';
import type { SessionEntry, ShardedTable } from './episodeRows.ts';

export interface RangeWorkerData {
  shards: number;
  expectedSteps?: ExpectedStepsTable;
}

/** Main thread → range thread. */
export type ToRangeThread =
  | { type: 'file'; fileNo: number; path: string; runName?: string; importId: number }
  | { type: 'piece'; fileNo: number; index: number; bytes: Uint8Array; first: boolean }
  | { type: 'place'; fileNo: number; index: number; placed: PiecePlacement }
  | { type: 'end'; fileNo: number };

/** What the main thread decided for a piece's episodes, in the piece's order. */
export interface PiecePlacement {
  /** The session of each episode placed: all of the piece's, or those before one that needs the staging path. */
  sessions: SessionEntry[];
  /** The file position of the piece's first episode, less one; of its first plan node and edge, less one. */
  episodesBefore: number;
  nodesBefore: number;
  edgesBefore: number;
  /** The file's id for each of the piece's error-type names (PieceRead.errorTypes). */
  errorTypeIds: number[];
  /** The policy of each run the piece names (PieceRead.runs): its first episode's in the file. */
  runPolicies: (string | null)[];
}

/** An episode of a piece as the main thread needs it to settle sessions and duplicates. */
export interface PieceEpisode {
  key: number;
  run: string;
  ext: string;
  parent: string | null;
  split: string | null;
  policyName: string | null;
  policyKind: string | null;
}

export interface PieceRead {
  type: 'read';
  fileNo: number;
  index: number;
  /** Lines in the piece (blank ones too): where the next piece's lines start. */
  lines: number;
  episodes: PieceEpisode[];
  turns: number;
  nodes: number;
  edges: number;
  /** Error types in the order the piece first names them. */
  errorTypes: string[];
  /** Runs in the order the piece first names them. */
  runs: string[];
  repairedStrings: number;
  modelsAdded: string[];
  modelsListPriced: string[];
  /**
   * The line (numbered within the piece) that refuses the file, and why: the piece's episodes are those before it,
   * still placed and encoded, since one of them may repeat an earlier one or hold a value the store cannot, which
   * the file's order reports first.
   */
  refused?: { line: number; reason: string };
}

/** Range thread → main thread. */
export type FromRangeThread =
  | PieceRead
  /** The piece's rows, per table and shard: RowBinary chunks (their memory moved, not copied). */
  | { type: 'rows'; fileNo: number; index: number; tables: { table: ShardedTable; shard: number; rows: number; chunks: Uint8Array[] }[] }
  /** A value the store cannot hold (RowValueError) in an episode's rows. */
  | { type: 'unstorable'; fileNo: number; index: number; episode: string; message: string }
  /** A bug: the import stops, unless it came from a file already abandoned (its `fileNo`, when it was about one). */
  | { type: 'crashed'; fileNo?: number; message: string; stack?: string };
