/** `routelens export-data`: the episodes as canonical JSON Lines (export/canonicalExport.ts), the tables as Parquet (export/parquetExport.ts). */
import { err, print, requireDb, UsageError, type Command } from './common.ts';
import { bar, Progress } from './progress.ts';
import { DATA_EXPORT_REDACT_USAGE, dataExportRedactor, REDACT_OPTIONS, reportRedaction } from './redactFlags.ts';
import { openDatabase } from '../db/database.ts';

export const command: Command = {
  usage: 'routelens export-data --db FILE --format jsonl --out FILE [--redact-secrets] [--redact REGEX...] [--json]\n' +
    '  one routelens/v1 episode per line (docs/canonical-format.md): turns, tokens, logged costs, parents and every message,\n' +
    '  so `routelens import FILE` rebuilds the same episodes. FILE is replaced when the export completes.\n' +
    'routelens export-data --db FILE --format parquet --out DIR [--redact-secrets] [--redact REGEX...] [--json]\n' +
    '  DIR/<table>/run=<name>/data_0.parquet for runs, episodes, turns, turn_text, turn_errors, turn_candidates, messages;\n' +
    '  models by name, episodes by the log\'s id, an unknown cost as NULL; run_name holds the run\'s full name (a name too long\n' +
    '  for a folder name is cut there, with a hash). DIR must be empty or new; it appears only when every file is written.\n' +
    DATA_EXPORT_REDACT_USAGE,
  options: { db: { type: 'string' }, format: { type: 'string' }, out: { type: 'string' }, json: { type: 'boolean' }, ...REDACT_OPTIONS },
  async run(values) {
    if (values.format !== 'parquet' && values.format !== 'jsonl') throw new UsageError('--format jsonl or --format parquet is required');
    if (typeof values.out !== 'string' || values.out === '') throw new UsageError(`--out ${values.format === 'jsonl' ? 'FILE' : 'DIR'} is required`);
    const redactor = dataExportRedactor(values);
    const db = openDatabase(requireDb(values), { readonly: true });
    const progress = new Progress(process.stderr, values.json === true && !process.stderr.isTTY);
    const asUsage = (e: unknown): never => {
      if (e instanceof RangeError) throw new UsageError(e.message);
      throw e;
    };
    try {
      if (values.format === 'jsonl') {
        const { exportCanonical } = await import('../export/canonicalExport.ts');
        const report = await exportCanonical(db, values.out as string, (done, total) =>
          progress.update(`exporting ${bar(total === 0 ? 1 : done / total)} ${done}/${total} episodes`),
        redactor).catch(asUsage);
        progress.done();
        reportRedaction(redactor);
        if (values.json) return print(report);
        err(`wrote ${report.file}: ${report.episodes} episodes, ${report.turns} turns, ${report.messages} messages`);
        return 0;
      }
      const { exportParquet, PARQUET_TABLES } = await import('../export/parquetExport.ts');
      const names = Object.keys(PARQUET_TABLES);
      const report = await exportParquet(db, values.out as string, (table, rows) =>
        progress.update(`exporting ${bar(names.indexOf(table) / names.length)} ${table}: ${rows} rows`),
      redactor).catch(asUsage);
      progress.done();
      reportRedaction(redactor);
      if (values.json) return print(report);
      err(`wrote ${report.dir}: ${Object.entries(report.tables).map(([t, n]) => `${t} ${n}`).join(', ')} rows`);
      return 0;
    } finally {
      db.close();
    }
  },
};
