// A file that changes while it is imported (issue 38 item 2): an agent appends to its log, or rewrites it
// shorter, while RouteLens reads it. The import hashes the file before the importer reads it; lines appended in
// between were stored under the earlier hash, and a file cut short was stored as complete, so importing the
// original again said "already imported" and its tail was never read. Here the change is made from the import's
// own progress callback, once the importer has read its first MiB (the hash reports no progress, so the change
// always falls after it): the file is refused whole, and imported whole once it stops changing. The same for the
// ClickHouse store, whose ledger must not call such a file completed.
import { createHash } from 'node:crypto';
import { appendFileSync, readFileSync, renameSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulate } from '../../fixtures/simulator/index.ts';
import { mulberry32 } from '../../shared/random.ts';
import { clickhouseSkipReason, startTestCluster, type TestCluster } from '../../test/clickhouseCluster.ts';
import { openDatabase } from '../db/database.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';
import { ClickHouseStore } from '../store/clickhouse/schema/connection.ts';
import { importToStore } from '../store/clickhouse/import/importToStore.ts';
import { initStore } from '../store/clickhouse/schema/schema.ts';
import { parseStoreUrl } from '../store/storeUrl.ts';
import { fileIdentity, hashFile, statCannotTell, whatChanged } from './fileIdentity.ts';
import { importPaths, type ImportProgress } from './pipeline.ts';

// `npm test` changes the file after the first MiB read; `npm run test:attack` after each of the first three.
const FULL = process.env.ROUTELENS_ATTACK === 'full';
const MOMENTS = FULL ? [1, 2, 3] : [1];
const tempDir = useSuiteTempDir();
const REFUSED = /^.+:0: changed while it was being imported \((size \d+ → \d+|rewritten, size \d+)\): nothing of it was kept; import it again once the agent has finished writing it$/;

/**
 * Canonical episodes (one JSON line each) whose observations carry ~60 kB of seeded words, so the file is read in
 * several 1 MiB chunks and the reader's read-ahead (at most two chunks) never reaches its end before the change.
 */
function canonicalLines(episodes: number, seed: number, run: string): string[] {
  const next = mulberry32(seed);
  const vocabulary = Array.from({ length: 5_000 }, (_, i) => `w${i.toString(36)}${Math.floor(next() * 1e6).toString(36)}`);
  const lines: string[] = [];
  for (const ep of simulate({ preset: 'swe', episodes, seed })) {
    ep.run = run;
    for (const turn of ep.turns) {
      const words = Array.from({ length: 60_000 / 8 / ep.turns.length }, () => vocabulary[Math.floor(next() * vocabulary.length)]);
      turn.observation = `${turn.observation ?? ''}\n${words.join(' ')}`;
    }
    lines.push(JSON.stringify(ep));
  }
  return lines.map((l) => `${l}\n`);
}

const sha256 = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

/** Calls `change` once, when the importer has read the `nth` chunk of the file (progress past `nth` − 1 MiB). */
function changeAt(nth: number, change: () => void): (p: ImportProgress) => void {
  let done = false;
  return (p) => {
    if (!done && p.fileBytesRead > (nth - 1) * 1024 * 1024 && p.fileBytesRead < p.fileBytes) {
      done = true;
      change();
    }
  };
}

function stored(dbPath: string): { sources: { content_hash: string; episodes: number }[]; episodes: number } {
  const db = new Database(dbPath, { readonly: true });
  try {
    return {
      sources: db.prepare('SELECT content_hash, episodes FROM sources').all() as { content_hash: string; episodes: number }[],
      episodes: db.prepare('SELECT count(*) FROM episodes').pluck().get() as number,
    };
  } finally {
    db.close();
  }
}

let lines: string[] = [];
let extra: string[] = [];

beforeAll(() => {
  lines = canonicalLines(70, 38, 'changing');
  extra = canonicalLines(6, 39, 'changing').map((l, i) => l.replace(/"episode_id":"([^"]+)"/, `"episode_id":"appended-${i}-$1"`));
  expect(lines.join('').length).toBeGreaterThan(4 * 1024 * 1024);
});

describe('a file that changes while it is imported', () => {
  for (const nth of MOMENTS) {
    it(`appended to after ${nth} MiB read: refused whole; imported whole, under the final bytes' hash, once it stops`, async () => {
      const dir = tempDir();
      const log = join(dir, 'agent.jsonl');
      writeFileSync(log, lines.join(''));
      const dbPath = join(dir, 'r.db');
      const db = openDatabase(dbPath);
      const first = await importPaths(db, [log], { onProgress: changeAt(nth, () => appendFileSync(log, extra.join(''))) });
      expect(first.files[0]?.status).toBe('rejected');
      expect(first.files[0]?.reason).toMatch(REFUSED);
      expect(first.files[0]?.reason).toContain(`size ${lines.join('').length} → `);
      expect(stored(dbPath)).toEqual({ sources: [], episodes: 0 });

      const again = await importPaths(db, [log]);
      db.close();
      expect(again.files.map((f) => [f.status, f.episodes])).toEqual([['imported', lines.length + extra.length]]);
      expect(stored(dbPath).sources).toEqual([{ content_hash: sha256(log), episodes: lines.length + extra.length }]);
    }, 60_000);

    it(`cut short after ${nth} MiB read: refused whole; the original imported whole afterwards (never "already imported")`, async () => {
      const dir = tempDir();
      const log = join(dir, 'agent.jsonl');
      const original = lines.join('');
      writeFileSync(log, original);
      const dbPath = join(dir, 'r.db');
      const db = openDatabase(dbPath);
      // At a line boundary past what the reader can have read ahead: the shorter file still parses.
      const keep = Buffer.byteLength(lines.slice(0, lines.length - 8).join(''));
      const first = await importPaths(db, [log], { onProgress: changeAt(nth, () => truncateSync(log, keep)) });
      expect(first.files[0]?.status).toBe('rejected');
      expect(first.files[0]?.reason).toMatch(REFUSED);
      expect(stored(dbPath)).toEqual({ sources: [], episodes: 0 });

      writeFileSync(log, original);
      const again = await importPaths(db, [log]);
      db.close();
      expect(again.files.map((f) => [f.status, f.episodes])).toEqual([['imported', lines.length]]);
      expect(stored(dbPath).sources).toEqual([{ content_hash: sha256(log), episodes: lines.length }]);
    }, 60_000);
  }

  it('cut mid-line while read: the refusal names the change, not the broken JSON it left', async () => {
    const dir = tempDir();
    const log = join(dir, 'agent.jsonl');
    writeFileSync(log, lines.join(''));
    const db = openDatabase(join(dir, 'r.db'));
    const midLine = Buffer.byteLength(lines.slice(0, lines.length - 8).join('')) + 100;
    const report = await importPaths(db, [log], { onProgress: changeAt(1, () => truncateSync(log, midLine)) });
    db.close();
    expect(report.files[0]?.reason).toMatch(REFUSED);
  }, 60_000);
});

describe('every way an importer reads: a whole JSON document, a zip archive', () => {
  // Their readers take the whole file (or an archive's members) in reads of their own; wherever the change falls,
  // the rows cannot be shown to come from the bytes hashed, so the file is refused and imported once it is still.
  for (const [name, sample, append] of [
    ['a mini-swe-agent trajectory (JSON document)', 'mini-swe-agent/trajs/django__django-12143/django__django-12143.traj.json', '\n'],
    ['an Inspect log (zip archive)', 'inspect/log_streaming.eval', null],
  ] as const) {
    it(`${name} written to while read: refused whole, imported once it is still`, async () => {
      const dir = tempDir();
      const log = join(dir, sample.split('/').pop() as string);
      const original = readFileSync(join(fileURLToPath(new URL('../../fixtures/samples/', import.meta.url)), sample));
      writeFileSync(log, original);
      // The rewrite below then falls in a later timestamp tick than this write (on a file system with fine times).
      await sleep(50);
      const db = openDatabase(join(dir, 'r.db'));
      let done = false;
      const onProgress = (p: ImportProgress): void => {
        if (!done && p.fileBytesRead > 0) {
          done = true;
          // An archive cannot take a byte more: written again whole, the same size and bytes (only its times move).
          if (append === null) writeFileSync(log, original);
          else appendFileSync(log, append);
        }
      };
      const first = await importPaths(db, [log], { onProgress });
      expect(first.files[0]?.reason).toMatch(REFUSED);
      const again = await importPaths(db, [log]);
      db.close();
      expect(again.files[0]?.status).toBe('imported');
    }, 60_000);
  }
});

describe('the check itself (what the live import of issue 36 calls)', () => {
  it('a file written within a timestamp tick is hashed again: a same-size rewrite stat cannot see is caught', async () => {
    const log = join(tempDir(), 'agent.jsonl');
    writeFileSync(log, lines[0] as string);
    const now = fileIdentity(log);
    if (now === null) throw new Error('no file');
    // Taken just after the write, however loaded the machine is.
    const before = { ...now, takenAtNs: now.ctimeNs + 1_000_000n };
    expect(statCannotTell(before)).toBe(true);
    const hash = await hashFile(log);
    expect(await whatChanged(log, before, hash)).toBeNull();
    // Stat unchanged, bytes not those hashed: as after a rewrite of the same size in the same tick.
    expect(await whatChanged(log, before, 'f'.repeat(64))).toBe(`rewritten, size ${before.size}`);
  });

  it('the tick is judged from ctime: 100 ms where times carry fractions of a second, 3 s where they are whole seconds', () => {
    const at = (ctimeNs: bigint, afterNs: bigint) =>
      statCannotTell({ dev: 1n, ino: 1n, size: 1n, mtimeNs: ctimeNs, ctimeNs, takenAtNs: ctimeNs + afterNs });
    expect(at(1_700_000_000_123_456_789n, 50_000_000n)).toBe(true);
    expect(at(1_700_000_000_123_456_789n, 200_000_000n)).toBe(false);
    expect(at(1_700_000_000_000_000_000n, 2_000_000_000n)).toBe(true);
    expect(at(1_700_000_000_000_000_000n, 4_000_000_000n)).toBe(false);
  });

  it('a file last written well before the import is judged by stat alone (no second read)', async () => {
    const log = join(tempDir(), 'agent.jsonl');
    writeFileSync(log, lines[0] as string);
    const now = fileIdentity(log);
    if (now === null) throw new Error('no file');
    // As if taken 10 s after its last write: a later write would have moved mtime and ctime, so stat decides,
    // and the bytes are not read again (a wrong hash goes unnoticed: that is the second read not made).
    const before = { ...now, takenAtNs: now.takenAtNs + 10_000_000_000n };
    expect(await whatChanged(log, before, 'f'.repeat(64))).toBeNull();
    appendFileSync(log, '\n');
    expect(await whatChanged(log, before, 'f'.repeat(64))).toBe(`size ${now.size} → ${now.size + 1n}`);
  });

  it('a file replaced by another (renamed over it) or removed is a change', async () => {
    const dir = tempDir();
    const log = join(dir, 'agent.jsonl');
    writeFileSync(log, lines[0] as string);
    const before = fileIdentity(log);
    if (before === null) throw new Error('no file');
    const hash = await hashFile(log);
    writeFileSync(join(dir, 'next.jsonl'), lines[0] as string);
    renameSync(join(dir, 'next.jsonl'), log);
    expect(await whatChanged(log, before, hash)).toBe('replaced by another file');
    rmSync(log);
    expect(await whatChanged(log, before, hash)).toBe('removed');
  });
});

const skip = clickhouseSkipReason();
if (skip) console.log(skip);

describe.skipIf(skip !== null)('a file that changes while imported into the ClickHouse store', () => {
  let cluster: TestCluster;
  const stores: ClickHouseStore[] = [];

  beforeAll(async () => {
    cluster = await startTestCluster(1);
  }, 120_000);

  afterAll(async () => {
    for (const s of stores) await s.close();
    await cluster?.stop();
  });

  const completed = async (store: ClickHouseStore): Promise<{ content_hash: string; episodes: string }[]> =>
    store.query(`SELECT content_hash, toString(episodes) AS episodes FROM ${store.database}.imports WHERE event = 'completed'`, {});

  const MODES = {
    'sent as read': { direct: true, threads: 1 },
    staged: { direct: false, threads: 1 },
    // Its worker threads take ~20 s to start on a 2-core machine: in the full pass only.
    ...(FULL ? { 'read by range threads': { direct: true, threads: 2, threadedMinBytes: 0, pieceBytes: 256 * 1024 } } : {}),
  };
  for (const [how, options] of Object.entries(MODES)) {
    it(`appended to while its rows are ${how}: refused, never completed in the ledger; imported whole afterwards`, async () => {
      const store = new ClickHouseStore(parseStoreUrl(cluster.url(`changing_${stores.length}`)));
      stores.push(store);
      await initStore(store);
      const log = join(tempDir(), 'agent.jsonl');
      writeFileSync(log, lines.join(''));
      const first = await importToStore(store, [log], { ...options, onProgress: changeAt(1, () => appendFileSync(log, extra.join(''))) });
      expect(first.files[0]?.status).toBe('rejected');
      expect(first.files[0]?.reason).toMatch(REFUSED);
      expect(await completed(store)).toEqual([]);

      const again = await importToStore(store, [log], options);
      expect(again.files.map((f) => [f.status, f.episodes])).toEqual([['imported', lines.length + extra.length]]);
      expect(await completed(store)).toEqual([{ content_hash: sha256(log), episodes: String(lines.length + extra.length) }]);
    }, 120_000);
  }
});
