/**
 * The `routelens` command (DESIGN §9): the table of commands and the dispatch. Each subcommand parses its own
 * flags, prints `--help`, writes one JSON document to stdout with `--json`, and exits 0 (ok), 1 (the user's
 * input is wrong: message on stderr, no stack) or 2 (our bug).
 *
 * A command's code lives in its own module beside this one and is imported only when that command runs (or
 * prints its usage): `routelens --help` and `routelens info` do not pay for SQLite, ONNX Runtime, the analyses
 * or the API contract they do not use. So this module imports nothing heavy, and a summary here is plain text.
 */
import { parseArgs } from 'node:util';
import { ANALYSES } from './analysisNames.ts';
import { err, out, UsageError, type Command } from './common.ts';

interface CommandEntry {
  summary: string;
  load: () => Promise<{ command: Command }>;
}

/** Every command, in the order `--help` lists them. */
export const COMMANDS: Record<string, CommandEntry> = {
  simulate: { summary: 'generate trajectories with planted, known effects (and a .truth.json beside them)', load: () => import('./simulate.ts') },
  import: { summary: 'import trajectory logs (files or folders) into a database', load: () => import('./import.ts') },
  watch: { summary: 'follow agents\' logs as they are written: import each change, one line per change, alerts', load: () => import('./watch.ts') },
  info: { summary: 'list the runs in a database', load: () => import('./info.ts') },
  analyze: { summary: `run an analysis: ${ANALYSES.join(', ')}`, load: () => import('./analyze.ts') },
  serve: { summary: 'serve the app to a browser on 127.0.0.1 (with an access token)', load: () => import('./serve.ts') },
  demo: { summary: 'build the demo database from the bundled samples', load: () => import('./demo.ts') },
  train: { summary: 'train the outcome estimator ŝ(h_t, a) and write model.onnx + model.card.json', load: () => import('./train.ts') },
  score: { summary: 'score every turn × candidate model with an estimator (ONNX Runtime: cuda → webgpu → cpu)', load: () => import('./score.ts') },
  estimators: {
    summary: 'list the estimators of a database and which one is in use; --use ID makes another the one in use',
    load: () => import('./estimators.ts'),
  },
  whatif: { summary: 'what if another model had taken this turn: ŝ, Δŝ, cost and nearest logged evidence per candidate', load: () => import('./whatif.ts') },
  replay: { summary: 'replay routing policies over logged runs: agreement, DM / IPS / WIS / DR with CIs, cost, switches', load: () => import('./replay.ts') },
  compare: {
    summary: 'compare two runs, models or routers paired by task: success, score and cost differences, cost per model',
    load: () => import('./compare.ts'),
  },
  store: { summary: 'create, migrate or clean a ClickHouse store (docs/scale-out.md)', load: () => import('./store.ts') },
  'export-data': {
    summary: 'write the database as canonical JSON Lines (routelens/v1, re-importable) or its tables as Parquet for DuckDB, Spark or a warehouse',
    load: () => import('./exportData.ts'),
  },
  // The analysis ids of shared/analysisResults.ts (ANALYSIS_IDS; main.test.ts holds them equal): that module builds zod schemas.
  export: {
    summary: 'write an analysis figure as SVG, PNG, PDF or its data as CSV: ' +
      'pareto, switch-cost, error-recovery, usage-by-turn, lift, plan-dag, budget-modes, usage-ratio, confusion, targets, calibration, embeddings',
    load: () => import('./export.ts'),
  },
  'export-html': {
    summary: 'share an episode, a run or a comparison as one self-contained HTML file (offline, secrets redacted)',
    load: () => import('./exportHtml.ts'),
  },
  doctor: { summary: 'check a database for damage (full integrity check) and say what can be recovered', load: () => import('./doctor.ts') },
  alerts: { summary: 'add, remove and list alert rules (rate>5/h, model~opus streak>20, errors>=3 in 5) and the alerts they fired', load: () => import('./alerts.ts') },
};

/** The commands that take `--store URL` so far; the others say so and ask for `--db FILE`. */
const STORE_AWARE = ['store', 'import', 'info', 'analyze', 'serve', 'export', 'replay', 'compare', 'train', 'score'];

function help(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
  return [
    'routelens — inspect, compare and replay multi-model LLM agent trajectories',
    '',
    'Commands:',
    ...Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`),
    '',
    'Run `routelens help COMMAND` (or `routelens COMMAND --help`) for its options.',
  ].join('\n');
}

const entryOf = (name: string): CommandEntry | undefined => (Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined);

async function usageOf(entry: CommandEntry): Promise<string> {
  return `${entry.summary}\n\nusage: ${(await entry.load()).command.usage}`;
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h') {
    out(help());
    return name === undefined ? 1 : 0;
  }
  // Some npx versions take `npx routelens --help` as asking npm for help; `npx routelens help import` reaches us.
  if (name === 'help') {
    const about = rest[0];
    if (about === undefined) {
      out(help());
      return 0;
    }
    const entry = entryOf(about);
    if (!entry) {
      err(`routelens help: unknown command "${about}"\n\n${help()}`);
      return 1;
    }
    out(await usageOf(entry));
    return 0;
  }
  const entry = entryOf(name);
  if (!entry) {
    err(`routelens: unknown command "${name}"\n\n${help()}`);
    return 1;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    out(await usageOf(entry));
    return 0;
  }
  let dbPath: string | undefined;
  if (rest.some((a) => a === '--store' || a.startsWith('--store=')) && !STORE_AWARE.includes(name)) {
    err(`routelens ${name}: does not read a ClickHouse store yet (--store works with ${STORE_AWARE.join(', ')}); give --db FILE`);
    return 1;
  }
  let usage = '';
  try {
    const { command } = await entry.load();
    usage = command.usage;
    const { values, positionals } = parseArgs({
      args: rest,
      options: command.options,
      allowPositionals: command.allowPositionals ?? false,
      strict: true,
    });
    if (typeof values.db === 'string') dbPath = values.db;
    return await command.run(values as Record<string, unknown>, positionals);
  } catch (caught) {
    // The common user errors, a UsageError or a wrong flag, are told here without loading what failure.ts needs
    // for the others; neither is an SQLite error, so databaseErrorOf would leave them as they are.
    if (caught instanceof UsageError) {
      err(`routelens ${name}: ${caught.message}`);
      return 1;
    }
    if (caught instanceof Error && 'code' in caught && typeof caught.code === 'string' && caught.code.startsWith('ERR_PARSE_ARGS')) {
      err(`routelens ${name}: ${caught.message}\nusage: ${usage}`);
      return 1;
    }
    const { failureOf } = await import('./failure.ts');
    const failure = failureOf(caught, dbPath);
    if (failure.kind === 'user') {
      err(`routelens ${name}: ${failure.message}`);
      return 1;
    }
    err(`routelens ${name}: internal error: ${failure.message}`);
    return 2;
  }
}
