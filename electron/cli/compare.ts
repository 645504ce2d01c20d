/**
 * `routelens compare`: side A against side B, paired by task (issue 18). `--json` prints exactly the API's
 * CompareResult (shared/apiCompare.ts); without it, a summary. `--out FILE.csv` writes every paired task.
 */
import { writeFileSync } from 'node:fs';
import { extname } from 'node:path';
import { FIGURE_FORMATS, FigureFormat } from '../../shared/apiAnalysis.ts';
import { COMPARE_FIELDS, type CompareField, type CompareInput, type CompareResult, type CompareSide } from '../../shared/apiCompare.ts';
import { modelColorFrom } from '../../shared/charts/context.ts';
import { COMPARE_FIGURE_IDS, type CompareFigureId } from '../../shared/charts/layouts/compareFigureIds.ts';
import { toCsv } from '../../shared/charts/csv.ts';
import { visibleText as v } from '../../shared/displayText.ts';
import { err, intFlag, money, out, print, requireDb, UsageError, type Command } from './common.ts';
import { compare, CompareError } from '../compare/compare.ts';
import { openDatabase } from '../db/database.ts';
import { compareFigureFile } from '../export/compareFigureFile.ts';
import { listModels } from '../db/models.ts';
import { openCheckedStore, STORE_OPTION } from './storeAccess.ts';
import { dataExportRedactor, REDACT_OPTIONS, reportRedaction } from './redactFlags.ts';
import { storeUrlOf, type ClickHouseStoreUrl } from '../store/storeUrl.ts';

/** `--a r1,r2` (or `--a r1 --a r2`): run ids by name; a name that holds a comma is taken whole when it exists. */
function runsOf(byName: Map<string, number>, given: string[] | undefined, flag: string): number[] {
  if (!given || given.length === 0) throw new UsageError(`--${flag} RUN[,RUN] is required`);
  return given.flatMap((g) => (byName.has(g) ? [g] : g.split(','))).map((name) => {
    const id = byName.get(name.trim());
    if (id === undefined) throw new UsageError(`--${flag}: no run named ${JSON.stringify(name)} (runs: ${[...byName.keys()].map((n) => JSON.stringify(n)).join(', ') || 'none'})`);
    return id;
  });
}

/** What a comparison reads: a SQLite file, or a ClickHouse store (each run's episodes read from the shards). */
interface CompareSource {
  runs(): Promise<Map<string, number>>;
  compare(input: CompareInput): Promise<CompareResult>;
  models(): Promise<{ name: string; color_index: number }[]>;
  close(): Promise<void>;
}

function dbSource(path: string): CompareSource {
  const db = openDatabase(path, { readonly: true });
  return {
    runs: async () => new Map((db.prepare('SELECT id, name FROM runs').all() as { id: number; name: string }[]).map((r) => [r.name, r.id])),
    compare: async (input) => compare(db, input),
    models: async () => listModels(db),
    close: async () => {
      db.close();
    },
  };
}

async function storeSource(url: ClickHouseStoreUrl): Promise<CompareSource> {
  const { compareOnStore } = await import('../store/clickhouse/queries/storeCompare.ts');
  const { listModelsOnStore, runNamesById } = await import('../store/clickhouse/queries/storeEpisodes.ts');
  const store = await openCheckedStore(url);
  return {
    runs: async () => new Map([...(await runNamesById(store))].map(([id, name]) => [name, id])),
    compare: (input) => compareOnStore(store, input),
    models: () => listModelsOnStore(store),
    close: () => store.close(),
  };
}

function whereOf(text: unknown, flag: string): CompareSide['where'] {
  if (text === undefined) return undefined;
  const m = /^([a-z_]+)=(.+)$/s.exec(String(text));
  if (!m || !(COMPARE_FIELDS as readonly string[]).includes(m[1] as string)) {
    throw new UsageError(`--${flag} takes FIELD=VALUE with FIELD one of ${COMPARE_FIELDS.join(', ')}, got ${JSON.stringify(text)}`);
  }
  return { field: m[1] as CompareField, value: m[2] as string };
}

const num = (x: number | null | undefined, digits = 3): string => (x === null || x === undefined ? 'n/a' : x.toFixed(digits));
const signed = (x: number, digits = 3): string => `${x >= 0 ? '+' : ''}${x.toFixed(digits)}`;
const interval = (ci: [number, number] | null, digits = 3): string => (ci ? ` [${ci[0].toFixed(digits)}, ${ci[1].toFixed(digits)}]` : '');
const pct = (x: number | null): string => (x === null ? 'n/a' : `${(x * 100).toFixed(1)}%`);

function printSummary(r: CompareResult): void {
  for (const [name, s] of [['A', r.a], ['B', r.b]] as const) {
    const unpriced = s.unpriced_episodes > 0 ? ` (+ unknown for ${s.unpriced_episodes} episode${s.unpriced_episodes === 1 ? '' : 's'})` : '';
    out(`${name}: ${v(s.label)}: ${s.episodes} episodes, ${s.tasks} tasks, ${s.with_outcome} with an outcome; success ${pct(s.success_rate)}, score ${num(s.mean_score)}, cost ${money(s.known_cost)}${unpriced}`);
  }
  const p = r.pairing;
  out(`paired: ${p.paired_tasks} tasks; unpaired: ${p.unpaired_a.length} on A, ${p.unpaired_b.length} on B`);
  out('');
  const st = r.stats;
  if (!r.outcomes_known) out('no outcomes: only cost and behaviour compared');
  if (st.success) {
    out(`success B − A: ${signed(st.success.diff)}${interval(st.success.ci)} (Newcombe 95%), exact McNemar p = ${st.success.p_value.toPrecision(3)}; ` +
      `${st.success.n} tasks: both ${st.success.both}, A only ${st.success.a_only}, B only ${st.success.b_only}, neither ${st.success.neither}`);
  }
  if (st.score) out(`score B − A:   ${signed(st.score.mean_diff)}${interval(st.score.ci)} over ${st.score.n} tasks`);
  if (st.cost) {
    const left = st.cost.n_unknown > 0 ? `; ${st.cost.n_unknown} with an unknown cost left out` : '';
    out(`cost B − A:    ${signed(st.cost.mean_diff, 4)}${interval(st.cost.ci, 4)} $ per task over ${st.cost.n} tasks${left}`);
  }
  if (r.outcomes_known) out(`wins: A ${st.wins.a}, tie ${st.wins.tie}, B ${st.wins.b}`);
  out(`intervals: 95%, ${st.bootstrap} paired bootstrap resamples, seed ${st.seed}`);
  out('');
  const columns = (c: string[]): string =>
    c.map((x, i) => (i < 3 ? x.padEnd([5, 9, 30][i] as number).slice(0, [5, 9, 30][i]) : x.padStart([6, 13, 12, 12, 12, 11, 8][i - 3] as number))).join(' ');
  out(columns(['side', 'scope', 'model', 'calls', 'tokens in', 'out', 'cached', 'cache write', 'cost', 'unknown']));
  for (const [name, rows] of [['A', r.attribution.a], ['B', r.attribution.b]] as const) {
    for (const m of rows) {
      out(columns([name, m.scope, v(m.model), ...[m.calls, m.tokens_in, m.tokens_out, m.tokens_cached, m.tokens_cache_write].map(String), money(m.cost), String(m.unknown_calls)]));
    }
  }
  const cf = r.counterfactual;
  if (cf) {
    const c = (x: number | null): string => (x === null ? 'unknown' : money(x));
    out('');
    out(`on ${v(cf.model)}: A ${c(cf.a_cost)}, B ${c(cf.b_cost)}${cf.n_unknown > 0 ? ` (${cf.n_unknown} episodes left out: no tokens or no price)` : ''}`);
    out(`  assumption: ${v(cf.assumption)}`);
  }
  if (p.notes.length) {
    out('');
    for (const n of p.notes) out(`note: ${v(n)}`);
  }
}

/** The per-task table as CSV (RFC 4180, formula-guarded: task ids come from logs). */
export function compareTasksCsv(r: CompareResult): string {
  const header = ['task_id', 'a_n', 'b_n', 'a_success', 'b_success', 'a_score', 'b_score', 'a_cost', 'b_cost', 'd_score', 'd_cost', 'winner', 'a_episode', 'b_episode'];
  const cf = r.counterfactual !== null;
  if (cf) header.push('a_counterfactual_cost', 'b_counterfactual_cost');
  return toCsv(header, r.tasks.map((t) => [
    t.task_id, t.a_n, t.b_n, t.a_success, t.b_success, t.a_score, t.b_score, t.a_cost, t.b_cost, t.d_score, t.d_cost, t.winner, t.a_episode, t.b_episode,
    ...(cf ? [t.a_counterfactual_cost, t.b_counterfactual_cost] : []),
  ]));
}

/** `--figure ID` with `--out FILE.ext`: which figure, in the format the file name asks for. */
function figureOf(given: unknown, outFile: string | undefined): { id: CompareFigureId; format: FigureFormat } | null {
  if (given === undefined) return null;
  const id = COMPARE_FIGURE_IDS.find((f) => f === given);
  if (!id) throw new UsageError(`--figure is one of ${COMPARE_FIGURE_IDS.join(', ')} (got "${v(String(given))}")`);
  if (outFile === undefined) throw new UsageError('--figure needs --out FILE.svg|.png|.pdf|.csv');
  const format = FigureFormat.safeParse(extname(outFile).slice(1).toLowerCase());
  if (!format.success) throw new UsageError(`--out must end in ${FIGURE_FORMATS.map((f) => `.${f}`).join(', ')} (got "${v(outFile)}")`);
  return { id, format: format.data };
}

export const command: Command = {
  usage: [
    'routelens compare --db FILE|--store URL --a RUN[,RUN] --b RUN[,RUN] [--a-where FIELD=VALUE] [--b-where FIELD=VALUE] [--a-label L] [--b-label L]',
    '                  [--counterfactual MODEL] [--bootstrap N] [--seed S] [--json] [--out FILE.csv [--redact-secrets] [--redact REGEX...]]',
    `                  [--figure ${COMPARE_FIGURE_IDS.join('|')} --out FILE.svg|.png|.pdf|.csv [--theme light|dark]]`,
    '',
    `A side is runs, or runs split by a field (${COMPARE_FIELDS.join(', ')}): --a r1 --a-where model=gpt-5 --b r1 --b-where model=kimi-k2.`,
    'Episodes are paired by task id (several per task averaged first); differences are B − A. Success: exact McNemar',
    "and Newcombe's 95% interval; score and cost: 95% paired bootstrap intervals. --counterfactual MODEL prices every",
    "call on MODEL (replay's pricing). --out writes every paired task as CSV; with --figure, that figure (as the",
    'window exports it: captioned, vector PDF) or its data.',
    '--redact-secrets (a .csv only): keys, tokens and home-folder user names in its text cells (task ids, run and',
    'model names) become placeholders; off by default, as the data is mostly numbers. --redact REGEX adds a pattern',
    'and turns it on. What was redacted is printed to stderr.',
  ].join('\n'),
  options: {
    db: { type: 'string' },
    ...STORE_OPTION,
    a: { type: 'string', multiple: true },
    b: { type: 'string', multiple: true },
    'a-where': { type: 'string' },
    'b-where': { type: 'string' },
    'a-label': { type: 'string' },
    'b-label': { type: 'string' },
    counterfactual: { type: 'string' },
    bootstrap: { type: 'string' },
    seed: { type: 'string' },
    json: { type: 'boolean' },
    out: { type: 'string' },
    figure: { type: 'string' },
    theme: { type: 'string' },
    ...REDACT_OPTIONS,
  },
  async run(values) {
    const store = storeUrlOf(values);
    const bootstrap = intFlag(values, 'bootstrap', 2000, 0, 20_000);
    const seed = intFlag(values, 'seed', 1, 0, 2 ** 31 - 1);
    const outFile = values.out as string | undefined;
    if (outFile !== undefined && outFile.trim() === '') throw new UsageError('--out needs a file name');
    const figure = figureOf(values.figure, outFile);
    const csv = figure ? undefined : outFile;
    const redactor = dataExportRedactor(values);
    if (redactor !== undefined && csv === undefined && figure?.format !== 'csv') {
      throw new UsageError('--redact-secrets and --redact apply to --out FILE.csv (the paired tasks or a figure\'s data)');
    }
    // Every string of the result is a name or id some CSV cell may carry; the numbers stay as they are.
    const written = (r: CompareResult): CompareResult => (redactor === undefined ? r : redactor.value(r));
    const theme = values.theme ?? 'light';
    if (theme !== 'light' && theme !== 'dark') throw new UsageError(`--theme is light or dark (got "${v(String(theme))}")`);
    const source = store ? await storeSource(store) : dbSource(requireDb(values));
    try {
      const byName = await source.runs();
      const side = (s: 'a' | 'b'): CompareSide => ({
        runIds: runsOf(byName, values[s] as string[] | undefined, s),
        where: whereOf(values[`${s}-where`], `${s}-where`),
        label: values[`${s}-label`] as string | undefined,
      });
      let result: CompareResult;
      try {
        // The CSV holds every paired task; the printed answer the default first 5000.
        result = await source.compare({ a: side('a'), b: side('b'), bootstrap, seed, counterfactual_model: values.counterfactual as string | undefined, ...(csv ? { limit_tasks: 200_000 } : {}) });
      } catch (e) {
        if (e instanceof CompareError) throw new UsageError(e.message);
        throw e;
      }
      if (csv) {
        writeFileSync(csv, compareTasksCsv(written(result)));
        err(`wrote ${v(csv)}: ${result.tasks.length} paired tasks`);
      }
      if (figure && outFile) {
        const file = await compareFigureFile(written(result), figure.id, { format: figure.format, theme, modelColor: modelColorFrom(await source.models()) });
        writeFileSync(outFile, file.data);
        err(`wrote ${v(outFile)}: ${figure.id} (${file.data.length.toLocaleString('en-US')} bytes)`);
      }
      reportRedaction(redactor);
      if (values.json) return print(result);
      printSummary(result);
      return 0;
    } finally {
      await source.close();
    }
  },
};
