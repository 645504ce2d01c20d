/**
 * A range thread of the store import (threadedFile.ts): pieces of a canonical file in, RowBinary rows out. It
 * parses and checks each line as the canonical importer does, resolves each episode with a writer of its own (an
 * in-memory database for models and error types, rolled back after each file, as the main thread's staging
 * database is), reports what only the file's order can decide, and encodes the rows once the main thread has
 * decided it (rangeProtocol.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { defaultErrorRules } from '../../../analysis/errorRules.ts';
import { openDatabase } from '../../../db/database.ts';
import { EpisodeWriter, type ResolvedEpisode } from '../../../db/episodeWriter.ts';
import { canonicalLine, MAX_LINE_BYTES } from '../../../importers/canonical.ts';
import { linesOf, parseJsonLine } from '../../../importers/lineReader.ts';
import { ImportError } from '../../../importers/types.ts';
import { planCounts, writeEpisodeRows } from './directRows.ts';
import { COLUMNS, emptySummary, episodeKey, type RowSink, type SessionIndex, type ShardedTable } from './episodeRows.ts';
import type { FromRangeThread, PiecePlacement, PieceRead, RangeWorkerData, ToRangeThread } from './rangeProtocol.ts';
import { RowBinaryBatch, RowValueError, rowEncoder } from './rowBinary.ts';
import { shardOf } from '../schema/schema.ts';

/** Unused room in a chunk's memory worth a copy to drop it. */
const SLACK_BYTES = 64 * 1024;
const port = parentPort;
if (!port) throw new Error('rangeWorker.ts runs as a worker thread');
const data = workerData as RangeWorkerData;
const db = openDatabase(':memory:');
const writer = new EpisodeWriter(db, defaultErrorRules(), data.expectedSteps, false);
const encoders = new Map((Object.keys(COLUMNS) as ShardedTable[]).map((t) => [t, rowEncoder(t, COLUMNS[t])]));

let file: Extract<ToRangeThread, { type: 'file' }> | null = null;
/** Pieces read and waiting for their placement. */
type Plan = ReturnType<typeof planCounts>;
const held = new Map<number, { episodes: ResolvedEpisode[]; plans: Plan[]; errorTypes: string[]; runs: string[] }>();
/** Models already reported for this file. */
let reported = { added: 0, listPriced: 0 };

const send = (m: FromRangeThread, transfer: ArrayBuffer[] = []): void => port.postMessage(m, transfer);

function read(m: Extract<ToRangeThread, { type: 'piece' }>, f: NonNullable<typeof file>): void {
  const episodes: ResolvedEpisode[] = [];
  const errorTypes = new Set<string>();
  const runs = new Set<string>();
  let lines = 0;
  let refused: PieceRead['refused'];
  try {
    for (const { lineNo, text } of linesOf(m.bytes, f.path, m.first, MAX_LINE_BYTES)) {
      lines = lineNo;
      if (text.trim() === '') continue;
      const r = writer.resolve(canonicalLine(f.path, lineNo, parseJsonLine(f.path, lineNo, text), f.runName));
      episodes.push(r);
      runs.add(r.ep.run);
      for (const t of r.turns) for (const x of t.errors) errorTypes.add(x.type);
    }
  } catch (e) {
    if (!(e instanceof ImportError)) throw e;
    refused = { line: e.line, reason: e.reason };
  }
  const plans = episodes.map(planCounts);
  const piece = { episodes, plans, errorTypes: [...errorTypes], runs: [...runs] };
  held.set(m.index, piece);
  let nodes = 0;
  let edges = 0;
  let turns = 0;
  let repairedStrings = 0;
  episodes.forEach((r, i) => {
    nodes += (plans[i] as Plan).nodes;
    edges += (plans[i] as Plan).edges;
    turns += r.turns.length;
    repairedStrings += r.repairedStrings;
  });
  const models = writer.models.uncommitted();
  const out: PieceRead = {
    type: 'read', fileNo: m.fileNo, index: m.index, lines, turns, nodes, edges, repairedStrings,
    episodes: episodes.map(({ ep }) => ({
      key: episodeKey(ep.run, ep.episode_id), run: ep.run, ext: ep.episode_id, parent: ep.parent?.episode_id ?? null,
      split: ep.task.split ?? null, policyName: ep.policy?.name ?? null, policyKind: ep.policy?.kind ?? null,
    })),
    errorTypes: piece.errorTypes, runs: piece.runs,
    modelsAdded: models.added.slice(reported.added), modelsListPriced: models.listPriced.slice(reported.listPriced), refused,
  };
  reported = { added: models.added.length, listPriced: models.listPriced.length };
  send(out);
}

function encode(m: Extract<ToRangeThread, { type: 'place' }>, f: NonNullable<typeof file>): void {
  const piece = held.get(m.index);
  if (!piece) throw new Error(`piece ${m.index} placed before it was read`);
  held.delete(m.index);
  const { placed } = m;
  const typeIds = new Map(piece.errorTypes.map((name, i) => [name, placed.errorTypeIds[i] as number]));
  const policies = new Map(piece.runs.map((run, i) => [run, placed.runPolicies[i] ?? null]));
  const batches = new Map([...encoders].map(([t, enc]) => [t, Array.from({ length: data.shards }, () => new RowBinaryBatch(enc))]));
  const sink: RowSink = {
    add: (table, rootKey, values) => (batches.get(table) as RowBinaryBatch[])[shardOf(rootKey, data.shards)]?.add(values),
    full: () => false,
    flush: async () => undefined,
  };
  // Sessions are the main thread's: this index only takes what writing an episode registers.
  const index: SessionIndex = { known: new Map(), lookup: async () => new Map() };
  const summary = emptySummary();
  let planFrom = placed.nodesBefore;
  let edgeFrom = placed.edgesBefore;
  // Only the episodes placed: a piece whose later episode sends the file through staging is written up to it.
  for (const [i, r] of piece.episodes.slice(0, placed.sessions.length).entries()) {
    // The masks' bits are the file's error-type ids, given out in the file's order (the main thread's).
    for (const t of r.turns) {
      let mask = 0;
      for (const x of t.errors) {
        const id = typeIds.get(x.type) as number;
        if (id < 31) mask |= 1 << id;
      }
      t.mask = mask;
    }
    const at = { fileOrd: placed.episodesBefore + i + 1, runPolicy: policies.get(r.ep.run) ?? null, planFrom, edgeFrom };
    try {
      writeEpisodeRows(sink, f.importId, placed.sessions[i] as PiecePlacement['sessions'][number], r, at, index, summary);
    } catch (e) {
      if (!(e instanceof RowValueError)) throw e;
      send({ type: 'unstorable', fileNo: m.fileNo, index: m.index, episode: r.ep.episode_id, message: e.message });
      return;
    }
    planFrom += (piece.plans[i] as Plan).nodes;
    edgeFrom += (piece.plans[i] as Plan).edges;
  }
  const tables: Extract<FromRangeThread, { type: 'rows' }>['tables'] = [];
  const transfer: ArrayBuffer[] = [];
  for (const [table, shards] of batches) {
    shards.forEach((b, shard) => {
      if (b.rows === 0) return;
      const rows = b.rows;
      const chunks = b.take();
      // Each chunk owns its memory and is moved to the main thread, not copied. A chunk that fills little of the
      // megabyte RowBinaryBatch allocates is copied to its size first: the main thread holds a sparse table's chunks
      // of many pieces until a flush, and counts them by their length.
      const owned = chunks.map((c) => (c.buffer.byteLength - c.byteLength > SLACK_BYTES ? Buffer.from(new Uint8Array(c).buffer) : c));
      for (const c of owned) transfer.push(c.buffer as ArrayBuffer);
      tables.push({ table, shard, rows, chunks: owned });
    });
  }
  send({ type: 'rows', fileNo: m.fileNo, index: m.index, tables }, transfer);
}

function endFile(): void {
  held.clear();
  reported = { added: 0, listPriced: 0 };
  if (db.inTransaction) db.exec('ROLLBACK');
  writer.rollback();
  file = null;
}

port.on('message', (m: ToRangeThread) => {
  try {
    if (m.type === 'file') {
      endFile();
      db.exec('BEGIN');
      file = m;
    } else if (m.type === 'end') {
      if (file?.fileNo === m.fileNo) endFile();
    } else if (file?.fileNo === m.fileNo) {
      if (m.type === 'piece') read(m, file);
      else encode(m, file);
    }
  } catch (e) {
    const err = e instanceof Error ? e : new Error(String(e));
    send({ type: 'crashed', fileNo: m.fileNo, message: err.message, stack: err.stack });
  }
});
