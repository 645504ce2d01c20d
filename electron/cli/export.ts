/**
 * `routelens export ANALYSIS --db F --out fig.svg|png|pdf|csv`: the same file the window's export menu
 * saves (both go through electron/export/figureFile.ts), for scripts and papers. The format is the output
 * file's extension; `--out` a folder with `--format` names the file as the window does.
 */
import { statSync, writeFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { ANALYSIS_IDS, AnalysisId, SIDE_BY_SIDE_MAX, type AnalysisRequest, type AnalysisResponse } from '../../shared/analysisResults.ts';
import { DEFAULT_FIGURE_WIDTH, FIGURE_FORMATS, FigureFormat } from '../../shared/apiAnalysis.ts';
import { modelColorFrom } from '../../shared/charts/context.ts';
import { AnalysisInputError, AnalysisNotFoundError, runAnalysis } from '../analysis/runAnalysis.ts';
import { err, intFlag, requireDb, UsageError, type Command } from './common.ts';
import { parseRho } from './rhoFlag.ts';
import { openDatabase } from '../db/database.ts';
import { figureFile } from '../export/figureFile.ts';
import { FigureTooLargeError } from '../export/figureLimits.ts';
import { FontNotFoundError } from '../export/fonts.ts';
import { listModels } from '../db/models.ts';
import { storeUrlOf, type ClickHouseStoreUrl } from '../store/storeUrl.ts';
import { openCheckedStore, STORE_OPTION } from './storeAccess.ts';
import { dataExportRedactor, REDACT_OPTIONS, reportRedaction } from './redactFlags.ts';

/** Where an export's numbers come from: a SQLite file, or a ClickHouse store (the same request, pushed down). */
interface AnalysisSource {
  run(request: AnalysisRequest): Promise<AnalysisResponse>;
  models(): Promise<{ name: string; color_index: number }[]>;
  close(): Promise<void>;
}

function dbSource(path: string): AnalysisSource {
  const db = openDatabase(path, { readonly: true });
  return { run: (r) => runAnalysis(db, r), models: async () => listModels(db), close: async () => {
    db.close();
  } };
}

async function storeSource(url: ClickHouseStoreUrl): Promise<AnalysisSource> {
  const { runAnalysisOnStore } = await import('../store/clickhouse/queries/storeAnalysisRequest.ts');
  const { listModelsOnStore } = await import('../store/clickhouse/queries/storeEpisodes.ts');
  const store = await openCheckedStore(url);
  return { run: (r) => runAnalysisOnStore(store, r), models: () => listModelsOnStore(store), close: () => store.close() };
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

export const command: Command = {
  usage:
    `routelens export ${ANALYSIS_IDS.join('|')} --db FILE|--store URL --out FIG.svg|.png|.pdf|.csv|FOLDER [--format svg|png|pdf|csv] [--run NAME...] [--draw RUN...] [--split NAME[,NAME]] [--episode ID] ` +
    '[--theme light|dark] [--width PX] [--scale N] [--dpi N] [--min-n N] [--reference RUN] [--rho MODEL=R,...] [--redact-secrets] [--redact REGEX...]\n\n' +
    `  The format is --out's extension; with --out a folder, --format gives it and the file is named after the\n` +
    `  analysis, the runs and today (switch-cost_run-a+run-b_2026-11-24.png). The figure carries its title,\n` +
    `  runs and export date in a caption on top. PNG is 2× the figure's size unless --scale or --dpi is given\n` +
    `  (--dpi 300 on the default ${DEFAULT_FIGURE_WIDTH} px width gives a ${(DEFAULT_FIGURE_WIDTH / 96).toFixed(1)} in wide image of ${Math.round((DEFAULT_FIGURE_WIDTH / 96) * 300)} px).\n` +
    '  targets needs --episode; plan-dag with --episode draws that episode\'s DAGs.\n' +
    '  --split: only episodes of these splits (train, val, test_id, ood_test, …; the groups id and ood).\n' +
    `  --draw: the runs drawn (at most ${SIDE_BY_SIDE_MAX}) when more are selected than a figure draws; by default\n` +
    '  those with the most scored episodes, as in the window. The figure names the runs it leaves out.\n' +
    '  --redact-secrets (.csv only): keys, tokens and home-folder user names in the text cells (run, model, episode\n' +
    '  and task names) become placeholders; off by default, as the data is mostly numbers. --redact REGEX adds a\n' +
    '  pattern and turns it on. What was redacted is printed to stderr.',
  options: {
    db: { type: 'string' }, ...STORE_OPTION, out: { type: 'string' }, format: { type: 'string' }, run: { type: 'string', multiple: true }, draw: { type: 'string', multiple: true }, split: { type: 'string' }, episode: { type: 'string' },
    theme: { type: 'string' }, width: { type: 'string' }, scale: { type: 'string' }, dpi: { type: 'string' },
    'min-n': { type: 'string' }, reference: { type: 'string' }, rho: { type: 'string' }, ...REDACT_OPTIONS,
  },
  allowPositionals: true,
  async run(values, positionals) {
    const id = AnalysisId.safeParse(positionals[0]);
    if (!id.success) throw new UsageError(`unknown analysis "${positionals[0] ?? ''}" (available: ${ANALYSIS_IDS.join(', ')})`);
    if (positionals.length > 1) throw new UsageError(`one analysis at a time (got ${positionals.join(' ')})`);
    const out = values.out;
    if (typeof out !== 'string' || out === '') throw new UsageError('--out FILE is required (.svg, .png, .pdf or .csv)');
    const folder = isFolder(out);
    const given = typeof values.format === 'string' ? values.format.toLowerCase() : undefined;
    if (given !== undefined && !folder) throw new UsageError('--format is for --out FOLDER; with a file name, its extension is the format');
    const format = FigureFormat.safeParse(folder ? given : extname(out).slice(1).toLowerCase());
    if (!format.success) {
      throw new UsageError(
        folder
          ? `--out ${out} is a folder: give --format ${FIGURE_FORMATS.join('|')}`
          : `--out must end in ${FIGURE_FORMATS.map((f) => `.${f}`).join(', ')} or be a folder (got "${out}")`,
      );
    }
    const theme = values.theme ?? 'light';
    if (theme !== 'light' && theme !== 'dark') throw new UsageError('--theme is light or dark');
    const width = intFlag(values, 'width', DEFAULT_FIGURE_WIDTH, 200, 4000);
    const dpi = values.dpi === undefined ? undefined : intFlag(values, 'dpi', 0, 36, 1200);
    const scale = values.scale === undefined ? undefined : Number(values.scale);
    if (scale !== undefined && !(scale >= 0.25 && scale <= 8)) throw new UsageError('--scale must be a number from 0.25 to 8');
    if (scale !== undefined && dpi !== undefined) throw new UsageError('give --scale or --dpi, not both');
    if ((scale !== undefined || dpi !== undefined) && format.data !== 'png') throw new UsageError('--scale and --dpi apply to .png only');
    const minN = values['min-n'] === undefined ? undefined : intFlag(values, 'min-n', 1, 1);
    const redactor = dataExportRedactor(values);
    if (redactor !== undefined && format.data !== 'csv') throw new UsageError('--redact-secrets and --redact apply to .csv (a figure\'s data)');
    const request: AnalysisRequest = {
      id: id.data,
      runs: (values.run as string[] | undefined) ?? [],
      ...(values.draw ? { draw: values.draw as string[] } : {}),
      split: values.split as string | undefined,
      episode: values.episode as string | undefined,
      minN,
      reference: values.reference as string | undefined,
      rho: parseRho(values.rho as string | undefined),
    };
    const store = storeUrlOf(values);
    const source = store ? await storeSource(store) : dbSource(requireDb(values));
    try {
      let response;
      try {
        response = await source.run(request);
      } catch (e) {
        if (e instanceof AnalysisInputError || e instanceof AnalysisNotFoundError) throw new UsageError(e.message);
        throw e;
      }
      let file;
      try {
        // Every string of the response is a name or id some CSV cell may carry; the numbers stay as they are.
        if (redactor !== undefined) response = redactor.value(response);
        file = await figureFile(response, { format: format.data, theme, width, scale, dpi, modelColor: modelColorFrom(await source.models()) });
      } catch (e) {
        // No font on this machine: the user can fix that (the message says how), so it is not our bug.
        if (e instanceof FontNotFoundError) throw new UsageError(e.message);
        if (e instanceof FigureTooLargeError) throw new UsageError(e.message);
        throw e;
      }
      const path = folder ? join(out, file.filename) : out;
      writeFileSync(path, file.data);
      err(`wrote ${path} (${format.data}, ${file.data.length.toLocaleString('en-US')} bytes)`);
      reportRedaction(redactor);
      return 0;
    } finally {
      await source.close();
    }
  },
};
