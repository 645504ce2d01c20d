// `routelens export` as a script runs it, on a small simulated database holding every kind of run
// (tool loops, Uno plans, critique verdicts, CoRL budget modes): each analysis writes a file that opens.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../testing/cliChild.ts';
import { simulate, type PresetName } from '../../fixtures/simulator/index.ts';
import { ANALYSIS_IDS, type AnalysisId } from '../../shared/analysisResults.ts';
import { runAnalysis } from '../analysis/runAnalysis.ts';
import { openDatabase } from '../db/database.ts';
import { importPaths } from '../importers/pipeline.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';

const tempDir = useSuiteTempDir();

function routelens(...args: string[]) {
  return runCli(args);
}

let dir: string;
let db: string;
let swEpisode: string;
let unoEpisode: string;

beforeAll(async () => {
  dir = tempDir();
  db = join(dir, 'sim.db');
  const files: string[] = [];
  for (const preset of ['scienceworld', 'uno', 'critique', 'corl'] as PresetName[]) {
    const file = join(dir, `${preset}.jsonl`);
    writeFileSync(file, [...simulate({ preset, episodes: 40, seed: 5 })].map((e) => JSON.stringify(e)).join('\n') + '\n');
    files.push(file);
  }
  const handle = openDatabase(db);
  await importPaths(handle, files);
  swEpisode = handle.prepare("SELECT e.ext_id FROM episodes e JOIN runs r ON r.id = e.run_id WHERE r.name = 'sw-mtrouter' ORDER BY e.id LIMIT 1").pluck().get() as string;
  unoEpisode = handle.prepare('SELECT e.ext_id FROM episodes e WHERE e.id = (SELECT episode_id FROM plan_nodes ORDER BY episode_id LIMIT 1)').pluck().get() as string;
  handle.close();
}, 120_000);

const SIGNATURE: Record<string, (b: Buffer) => boolean> = {
  svg: (b) => b.toString('utf8').startsWith('<?xml') && b.toString('utf8').includes('<svg'),
  png: (b) => b.subarray(1, 4).toString('latin1') === 'PNG',
  pdf: (b) => b.subarray(0, 5).toString('latin1') === '%PDF-',
  csv: (b) => /^[a-z_]+(,[a-z_]+)+\r\n/.test(b.toString('utf8')),
};

describe('routelens export', () => {
  const formats = ['svg', 'png', 'pdf', 'csv'] as const;
  ANALYSIS_IDS.forEach((id, i) => {
    const format = formats[i % formats.length] as string;
    it(`writes ${id} as ${format}`, () => {
      const out = join(dir, `${id}.${format}`);
      const extra = id === 'targets' ? ['--run', 'sw-mtrouter', '--episode', swEpisode] : id === 'lift' ? ['--min-n', '5'] : [];
      const r = routelens('export', id, '--db', db, '--out', out, ...extra);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(new RegExp(`wrote .*${id}\\.${format}`));
      expect(SIGNATURE[format]!(readFileSync(out))).toBe(true);
    });
  });

  it('draws one episode\'s plan DAG, in the dark theme at 300 dpi', () => {
    const out = join(dir, 'dag.png');
    const r = routelens('export', 'plan-dag', '--db', db, '--episode', unoEpisode, '--theme', 'dark', '--dpi', '300', '--width', '480', '--out', out);
    expect(r.code, r.stderr).toBe(0);
    const png = readFileSync(out);
    expect(png.readUInt32BE(16)).toBe(Math.round((480 / 96) * 300));
  });

  it('with --out FOLDER names the file after the analysis, runs and day, and captions the figure', () => {
    const folder = join(dir, 'named');
    mkdirSync(folder);
    const r = routelens('export', 'switch-cost', '--db', db, '--run', 'sw-mtrouter', '--run', 'uno-orchestra', '--format', 'svg', '--out', folder);
    expect(r.code, r.stderr).toBe(0);
    const [name] = readdirSync(folder);
    expect(name).toMatch(/^switch-cost_sw-mtrouter\+uno-orchestra_\d{4}-\d{2}-\d{2}\.svg$/);
    const svg = readFileSync(join(folder, name as string), 'utf8');
    expect(svg).toContain('>Switches vs cost</text>');
    expect(svg).toMatch(/runs sw-mtrouter and uno-orchestra · exported \d{4}-\d{2}-\d{2}/);
    expect(routelens('export', 'lift', '--db', db, '--out', folder).stderr).toMatch(/is a folder: give --format/);
    expect(routelens('export', 'lift', '--db', db, '--format', 'png', '--out', join(dir, 'x.svg')).code).toBe(1);
  });

  it('draws the runs --draw names, each mark naming its run, and names the others in the figure', () => {
    const out = join(dir, 'drawn.svg');
    const r = routelens('export', 'error-recovery', '--db', db, '--run', 'sw-mtrouter', '--run', 'sw-random', '--run', 'sw-gpt-5', '--draw', 'sw-random', '--out', out);
    expect(r.code, r.stderr).toBe(0);
    const svg = readFileSync(out, 'utf8');
    expect([...new Set([...svg.matchAll(/data-series="([^"]+)"/g)].map((m) => m[1]))]).toEqual(['sw-random']);
    const text = svg.replace(/<title>[^<]*<\/title>/g, '').replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
    expect(text).toMatch(/Not drawn, 2 more runs .*: sw-gpt-5, sw-mtrouter /);
  });

  it('says what is wrong, with exit code 1', () => {
    expect(routelens('export', 'lift', '--db', db, '--out', join(dir, 'x.gif')).stderr).toMatch(/--out must end in/);
    expect(routelens('export', 'targets', '--db', db, '--out', join(dir, 'x.svg')).code).toBe(1);
    expect(routelens('export', 'pareto', '--db', db, '--run', 'nope', '--out', join(dir, 'x.svg')).code).toBe(1);
    expect(routelens('export', 'pareto', '--db', db, '--dpi', '300', '--out', join(dir, 'x.svg')).code).toBe(1);
    const help = routelens('export', '--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--out FIG\.svg\|\.png\|\.pdf\|\.csv/);
  });
});

describe('runAnalysis', () => {
  it('gives what `routelens analyze --json` prints, plus only the figure fields', async () => {
    const handle = openDatabase(db);
    try {
      const cases: [AnalysisId, string[]][] = [
        ['pareto', []], ['switch-cost', []], ['error-recovery', []], ['usage-by-turn', []], ['lift', ['--min-n', '5']],
        ['plan-dag', []], ['budget-modes', []], ['usage-ratio', []], ['confusion', []], ['targets', ['--run', 'sw-mtrouter', '--episode', swEpisode]],
      ];
      for (const [id, args] of cases) {
        const cli = routelens('analyze', id, '--db', db, '--json', ...args);
        expect(cli.code, cli.stderr).toBe(0);
        const request = { id, minN: id === 'lift' ? 5 : undefined, runs: id === 'targets' ? ['sw-mtrouter'] : undefined, episode: id === 'targets' ? swEpisode : undefined };
        const { result } = await runAnalysis(handle, request);
        const { by_run: _byRun, run: _run, ...rest } = result as Record<string, unknown>;
        // Pareto's points carry their task types for the figure only.
        if (Array.isArray(rest.points)) rest.points = (rest.points as Record<string, unknown>[]).map(({ task_types: _types, ...p }) => p);
        expect(JSON.parse(JSON.stringify(rest)), id).toEqual(JSON.parse(cli.stdout));
      }
    } finally {
      handle.close();
    }
  }, 120_000);
});
