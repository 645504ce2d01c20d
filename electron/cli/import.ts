/** `routelens import PATH... --db FILE|--store URL`: logs into a database or a ClickHouse store. */
import { expectedStepsTableNames, loadExpectedSteps, type ExpectedStepsTable } from '../analysis/expectedSteps.ts';
import { visibleText as v } from '../../shared/displayText.ts';
import { describeWait, openDatabase } from '../db/database.ts';
import { importPaths, type ImportReport } from '../importers/pipeline.ts';
import { IMPORTERS } from '../importers/registry.ts';
import { storeUrlOf } from '../store/storeUrl.ts';
import { err, out, requireDb, UsageError, type Command } from './common.ts';
import { bar, Progress } from './progress.ts';
import { importIntoStore, STORE_OPTION } from './storeAccess.ts';

/** Ignored files listed one per line up to this many; `--verbose` lists them all. */
const IGNORED_SHOWN = 20;

function printImportReport(report: ImportReport, verbose: boolean): void {
  for (const f of report.files) {
    // Paths, reasons and warnings quote file names and log text: one line each, whatever they hold.
    if (f.status === 'imported') err(`imported  ${v(f.path)} (${f.format}: ${f.episodes} episodes, ${f.turns} turns)`);
    else if (f.status === 'skipped') err(`skipped   ${v(f.path)}: ${v(f.reason ?? '')}`);
    else err(`rejected  ${v(f.reason ?? '')}`);
  }
  const shown = verbose ? report.ignored : report.ignored.slice(0, IGNORED_SHOWN);
  for (const i of shown) err(`ignored   ${v(i.path)}: ${v(i.reason)}`);
  if (shown.length < report.ignored.length) {
    const byReason = new Map<string, number>();
    for (const i of report.ignored.slice(shown.length)) {
      const kind = i.reason.replace(/:.*$/, '').replace(/\s*\(.*$/, '');
      byReason.set(kind, (byReason.get(kind) ?? 0) + 1);
    }
    const summary = [...byReason].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${n} ${k}`).join(', ');
    err(`ignored   … and ${report.ignored.length - shown.length} more (${summary}); --verbose lists them all`);
  }
  for (const w of report.warnings) err(`warning: ${v(w)}`);
}

/** `routelens import … --db FILE`: waits, with a message, while another process imports into the same file. */
async function importIntoDb(values: Record<string, unknown>, paths: string[], expectedSteps: ExpectedStepsTable | undefined): Promise<ImportReport> {
  const db = openDatabase(requireDb(values, false));
  const progress = new Progress(process.stderr, values.json === true && !process.stderr.isTTY);
  let waitedForWriter = false;
  try {
    return await importPaths(db, paths, {
      format: values.format as string | undefined,
      runName: values.run as string | undefined,
      expectedSteps,
      // Another process is importing into this database: say so, once a second, until it finishes.
      onWait: (w) => {
        if (!waitedForWriter) err(describeWait(w)); // always once, also with --json
        else progress.update(describeWait(w));
        waitedForWriter = true;
      },
      onProgress: (p) => {
        if (waitedForWriter) {
          waitedForWriter = false;
          progress.done();
        }
        const within = p.fileBytes > 0 ? p.fileBytesRead / p.fileBytes : 0;
        const frac = p.filesTotal > 0 ? (p.filesDone + within) / p.filesTotal : 1;
        progress.update(`importing ${bar(frac)} ${p.filesDone}/${p.filesTotal} files, ${p.episodes} episodes, ${p.turns} turns`);
      },
    });
  } finally {
    progress.done();
    db.close();
  }
}

export const command: Command = {
  usage: `routelens import PATH... --db FILE|--store URL [--format auto|${IMPORTERS.map((i) => i.format).join('|')}] [--run NAME] [--expected-steps ${expectedStepsTableNames().join('|')}|FILE] [--verbose] [--json]\n` +
    '  --verbose: list every file of a folder that was not read (the first 20 are listed by default); --json has them all.\n' +
    '  --expected-steps: N per task for the AEC targets, stored per episode at import: a built-in table, a JSON/YAML\n' +
    '  file {"by_task_type": {TYPE: {"default": N, "by_category": {CATEGORY: N}}}}, or the MTRouter authors\' error_rules.yaml\n' +
    '  (its aec.expected_steps). Default: fixtures/expected-steps.json (ScienceWorld 27 for every task, as the authors\' code).',
  options: { db: { type: 'string' }, ...STORE_OPTION, format: { type: 'string' }, run: { type: 'string' }, 'expected-steps': { type: 'string' }, json: { type: 'boolean' }, verbose: { type: 'boolean' } },
  allowPositionals: true,
  async run(values, paths) {
    if (paths.length === 0) throw new UsageError('give at least one file or folder to import');
    const stepsSpec = values['expected-steps'] as string | undefined;
    let expectedSteps;
    try {
      expectedSteps = stepsSpec === undefined ? undefined : loadExpectedSteps(stepsSpec);
    } catch (e) {
      if (e instanceof RangeError) throw new UsageError(e.message);
      throw e;
    }
    const store = storeUrlOf(values);
    const report = store
      ? await importIntoStore(store, paths, { format: values.format as string | undefined, runName: values.run as string | undefined, expectedSteps }, values.json === true)
      : await importIntoDb(values, paths, expectedSteps);
    if (values.json) out(JSON.stringify(report));
    else printImportReport(report, values.verbose === true);
    const rejected = report.files.filter((f) => f.status === 'rejected').length;
    if (!values.json) {
      const imported = report.files.filter((f) => f.status === 'imported');
      err(`${imported.length} imported, ${report.files.length - imported.length - rejected} skipped, ${rejected} rejected` +
        (report.ignored.length ? `, ${report.ignored.length} other files ignored` : ''));
    }
    return rejected > 0 ? 1 : 0;
  },
};
