// Which runs `runAnalysis` puts side by side: only runs the request names, the drawn ones (at most SIDE_BY_SIDE_MAX,
// answered as `draw`, the same for every figure), and a run on one model as a line rather than a lift panel.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { LiftResult, SIDE_BY_SIDE_MAX } from '../../shared/analysisResults.ts';
import { openDatabase } from '../db/database.ts';
import type { Db } from '../db/dbHandle.ts';
import { importPaths } from '../importers/pipeline.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';
import { runAnalysis } from './runAnalysis.ts';
import { DEFAULT_FIGURE_WIDTH } from '../../shared/apiAnalysis.ts';
import { figureScene } from '../../shared/charts/figures.ts';
import type { Mark } from '../../shared/charts/scene.ts';
import { LIGHT_THEME } from '../../shared/charts/theme.ts';
import { figureFile } from '../export/figureFile.ts';

const tempDir = useSuiteTempDir();
let db: Db;
const twoModelRuns = Array.from({ length: 8 }, (_, i) => `r${i}`);

const ep = (run: string, id: string, models: string[], taskType = 'scienceworld') =>
  JSON.stringify({
    schema: 'routelens/v1', run, episode_id: id, task: { type: taskType }, outcome: { success: true },
    turns: models.map((model, t) => ({ t, model, action: { type: 'tool', tool: t % 2 ? 'bash' : 'python' }, cost_usd: 0.01, errors: [] })),
  });

beforeAll(async () => {
  const dir = tempDir();
  const file = join(dir, 'runs.jsonl');
  const lines = twoModelRuns.flatMap((run) => [ep(run, `${run}-1`, ['gpt-5', 'kimi-k2', 'gpt-5']), ep(run, `${run}-2`, ['kimi-k2', 'kimi-k2'])]);
  lines.push(ep('solo', 'solo-1', ['gpt-5', 'gpt-5']));
  // The run with the most sessions, all scored: drawn first by default.
  for (let i = 0; i < 3; i++) lines.push(ep('hle-a', `hle-${i}`, ['gpt-5'], 'hle'));
  writeFileSync(file, lines.join('\n'));
  db = openDatabase(join(dir, 'runs.db'));
  await importPaths(db, [file]);
});

const lift = async (runs?: string[]) => LiftResult.parse((await runAnalysis(db, { id: 'lift', runs, minN: 1 })).result);

describe('side-by-side lift panels', () => {
  it('draws none when the request names no run: every run is pooled', async () => {
    const r = await lift();
    expect(r.by_run).toBeUndefined();
    expect(r.by_run_omitted).toBeUndefined();
    expect(r.cells.length).toBeGreaterThan(0);
  });

  it(`puts at most ${SIDE_BY_SIDE_MAX} named runs side by side, in name order, and lists the rest`, async () => {
    const r = await lift([...twoModelRuns].reverse());
    expect(r.by_run?.map((b) => b.run)).toEqual(twoModelRuns.slice(0, SIDE_BY_SIDE_MAX));
    expect(r.by_run_omitted).toEqual(twoModelRuns.slice(SIDE_BY_SIDE_MAX));
  });

  it('puts the chosen runs side by side, and answers which runs every figure of the selection draws', async () => {
    const response = await runAnalysis(db, { id: 'lift', runs: twoModelRuns, minN: 1, draw: ['r7', 'r2', 'not-selected'] });
    const r = LiftResult.parse(response.result);
    expect(r.by_run?.map((b) => b.run)).toEqual(['r2', 'r7']);
    expect(r.by_run_omitted).toEqual(twoModelRuns.filter((x) => x !== 'r2' && x !== 'r7'));
    expect(response.request.draw).toEqual(['r2', 'r7']);
    // Every figure draws the same runs: the default, without a choice, whatever the analysis.
    const drawn = await Promise.all((['pareto', 'switch-cost', 'error-recovery', 'usage-by-turn'] as const).map(async (id) => (await runAnalysis(db, { id, runs: twoModelRuns })).request.draw));
    expect(new Set(drawn.map((d) => JSON.stringify(d))).size).toBe(1);
    expect(drawn[0]).toHaveLength(SIDE_BY_SIDE_MAX);
  });

  it('draws by default the runs with the most scored sessions, and gives Pareto’s points their task types', async () => {
    const response = await runAnalysis(db, { id: 'pareto' });
    expect(response.request.draw).toEqual(['hle-a', 'r0', 'r1', 'r2', 'r3', 'r4']);
    const types = new Map((response.result as { points: { run: string; task_types?: string[] }[] }).points.map((p) => [p.run, p.task_types]));
    expect(types.get('hle-a')).toEqual(['hle']);
    expect(types.get('r0')).toEqual(['scienceworld']);
  });

  it('exports the runs the window draws, in its colours, each mark naming its run, and names the others in the file', async () => {
    const response = await runAnalysis(db, { id: 'switch-cost' });
    const svg = (await figureFile(response, { format: 'svg', modelColor: () => '#0072B2' })).data.toString('utf8');
    const window = figureScene(response, { theme: LIGHT_THEME, width: DEFAULT_FIGURE_WIDTH, modelColor: () => '#0072B2' });
    const colourOf = new Map<string, Set<string>>();
    for (const [, fill, run] of svg.matchAll(/fill="(#[^"]+)" data-series="([^"]+)"/g)) colourOf.set(run!, (colourOf.get(run!) ?? new Set()).add(fill!));
    expect([...colourOf.keys()].sort()).toEqual(response.request.draw);
    const flat = (marks: Mark[]): Mark[] => marks.flatMap((m) => (m.type === 'group' ? flat(m.marks) : [m]));
    for (const m of flat(window.marks)) if (m.series && m.fill && m.role === 'point') expect([...(colourOf.get(m.series) ?? [])]).toEqual([m.fill]);
    expect(svg).toMatch(/Not drawn, 4 more runs/);
    expect(svg).toContain('r5, r6, r7, solo');
  });

  it('lists a run on one model instead of drawing it, and still draws a single other run', async () => {
    const r = await lift(['solo', 'r3']);
    expect(r.by_run_single_model).toEqual([{ run: 'solo', model: 'gpt-5' }]);
    expect(r.by_run?.map((b) => b.run)).toEqual(['r3']);
    // r3 alone: gpt-5 has 2 of 5 turns, both python (3 python turns): lift = (2/3) / (2/5).
    expect(r.by_run?.[0]?.cells.find((c) => c.model === 'gpt-5' && c.category === 'python')?.lift).toBeCloseTo(5 / 3, 12);
  });
});
