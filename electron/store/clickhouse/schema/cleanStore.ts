/**
 * `routelens store clean`: removes rows no query can see. An import that never completed (killed, or stopped by
 * a store error) left rows on some shards under an import id without a 'completed' event; an import replaced by a
 * newer file's is 'superseded'. Their rows are deleted on every shard (ALTER … DELETE, which ClickHouse runs in
 * the background) and the ledger records 'abandoned' / 'cleaned', so each is cleaned once. A file refused after
 * some of its rows were sent is 'abandoned' at once. Imports started less
 * than `olderThanMs` ago are left alone: they may still be running in another process. The estimates of a scoring
 * that was cancelled or never completed go the same way.
 */
import type { ClickHouseStore } from './connection.ts';
import { clickhouseDateTime, ledgerRow, requireSchema, scoringLedgerRow, SHARDED_TABLES } from './schema.ts';

export interface CleanReport {
  abandoned: number[];
  superseded: number[];
  /** Scorings (storeScoring.ts) that were cancelled or never completed: their estimates were deleted. */
  scorings: number[];
}

export async function cleanStore(store: ClickHouseStore, olderThanMs = 60 * 60 * 1000): Promise<CleanReport> {
  await requireSchema(store);
  const cutoff = clickhouseDateTime(new Date(Date.now() - olderThanMs));
  const rows = await store.query<{ import_id: string; kind: string }>(
    `SELECT import_id,
       multiIf(countIf(event = 'cleaned') > 0, '',
               countIf(event = 'abandoned') > 0, 'abandoned',
               countIf(event = 'started') > 0 AND countIf(event = 'completed') = 0 AND minIf(at, event = 'started') < toDateTime({cutoff:String}), 'abandoned',
               countIf(event = 'superseded') > 0, 'superseded', '') AS kind
     FROM ${store.database}.imports GROUP BY import_id HAVING kind != ''`,
    { cutoff },
  );
  const scorings = (await store.query<{ id: string }>(
    `SELECT scoring_id AS id FROM ${store.database}.scorings GROUP BY scoring_id
     HAVING countIf(event = 'cleaned') = 0 AND (countIf(event = 'abandoned') > 0
       OR (countIf(event = 'completed') = 0 AND minIf(at, event = 'started') < toDateTime({cutoff:String})))`,
    { cutoff },
  )).map((r) => Number(r.id));
  const report: CleanReport = {
    abandoned: rows.filter((r) => r.kind === 'abandoned').map((r) => Number(r.import_id)),
    superseded: rows.filter((r) => r.kind === 'superseded').map((r) => Number(r.import_id)),
    scorings,
  };
  if (scorings.length) {
    await store.insert(store.coordinator, 'scorings', scorings.map((id) => scoringLedgerRow(id, 'abandoned')));
    for (const node of store.nodes) await store.command(`ALTER TABLE ${store.database}.estimates_local DELETE WHERE scoring_id IN (${scorings.join(', ')})`, node);
    await store.insert(store.coordinator, 'scorings', scorings.map((id) => scoringLedgerRow(id, 'cleaned')));
  }
  const ids = [...report.abandoned, ...report.superseded];
  if (ids.length === 0) return report;
  const list = ids.join(', ');
  // Abandoned first in the ledger: from here on no query counts them, whatever the deletes' progress.
  await store.insert(store.coordinator, 'imports', report.abandoned.map((id) => ledgerRow(id, 'abandoned')));
  for (const node of store.nodes) {
    for (const table of SHARDED_TABLES) await store.command(`ALTER TABLE ${store.database}.${table}_local DELETE WHERE import_id IN (${list})`, node);
  }
  await store.command(`ALTER TABLE ${store.database}.runs DELETE WHERE import_id IN (${list})`);
  await store.insert(store.coordinator, 'imports', ids.map((id) => ledgerRow(id, 'cleaned')));
  return report;
}
