/** `routelens export-data`: the canonical tables for other tools (electron/export/parquetExport.ts). */
import { err, print, requireDb, UsageError, type Command } from './cliCommon.ts';
import { bar, Progress } from './cliProgress.ts';
import { openDatabase } from './db/database.ts';

export const exportDataCommands: Record<string, Command> = {
  'export-data': {
    summary: 'write the canonical tables as Parquet, partitioned by run, for DuckDB, Spark or a warehouse',
    usage: 'routelens export-data --db FILE --format parquet --out DIR [--json]\n' +
      '  DIR/<table>/run=<name>/data_0.parquet for runs, episodes, turns, turn_text, turn_errors, turn_candidates;\n' +
      '  models by name, episodes by the log\'s id, an unknown cost as NULL. DIR must be empty or new.',
    options: { db: { type: 'string' }, format: { type: 'string' }, out: { type: 'string' }, json: { type: 'boolean' } },
    async run(values) {
      if (values.format !== 'parquet') throw new UsageError('--format parquet is required (the one format export-data writes)');
      if (typeof values.out !== 'string' || values.out === '') throw new UsageError('--out DIR is required');
      const db = openDatabase(requireDb(values), { readonly: true });
      const progress = new Progress(process.stderr, values.json === true && !process.stderr.isTTY);
      const { exportParquet, PARQUET_TABLES } = await import('./export/parquetExport.ts');
      const names = Object.keys(PARQUET_TABLES);
      try {
        const report = await exportParquet(db, values.out as string, (table, rows) =>
          progress.update(`exporting ${bar(names.indexOf(table) / names.length)} ${table}: ${rows} rows`),
        ).catch((e: unknown) => {
          if (e instanceof RangeError) throw new UsageError(e.message);
          throw e;
        });
        progress.done();
        if (values.json) return print(report);
        err(`wrote ${report.dir}: ${Object.entries(report.tables).map(([t, n]) => `${t} ${n}`).join(', ')} rows`);
        return 0;
      } finally {
        db.close();
      }
    },
  },
};
