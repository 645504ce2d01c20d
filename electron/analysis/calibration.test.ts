// Calibration on a hand-built database: known ŝ of each logged model against known S̃, worked by hand.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { chartTheme } from '../../shared/charts/theme.ts';
import { figureCsv, figureScene } from '../../shared/charts/figures.ts';
import type { Mark } from '../../shared/charts/scene.ts';
import { openDatabase } from '../db/database.ts';
import type { Db } from '../db/dbHandle.ts';
import { importPaths } from '../importers/pipeline.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';
import { calibrationAnalysis, calibrationFit } from './calibration.ts';
import { runAnalysis } from './runAnalysis.ts';

const tempDir = useSuiteTempDir();

const turn = (t: number, model: string) => ({ t, model, action: { type: 'message', text: `step ${t}` }, observation: 'ok' });
const episode = (run: string, id: string, score: number | null, models: string[]) => ({
  schema: 'routelens/v1',
  run,
  episode_id: id,
  task: { id: `task-${id}` },
  outcome: { score, score_range: [0, 1], success: score === null ? null : score > 0.5 },
  turns: models.map((m, t) => turn(t, m)),
});

/** Per turn: run, episode, t, ŝ of the logged model, S̃ (null: the episode has no outcome). */
const HAND: [string, string, number, number, number | null][] = [
  ['cal-a', 'a1', 0, 0.05, 0.1],
  ['cal-a', 'a1', 1, 0.15, 0.2],
  ['cal-a', 'a1', 2, 0.12, 0.3],
  ['cal-a', 'a1', 3, 0.95, 0.8],
  ['cal-b', 'b1', 0, 0.55, 0.4],
  ['cal-b', 'b1', 1, 1.02, 0.9],
  ['cal-b', 'b2', 0, 0.5, null],
];

let db: Db;
let dbPath: string;
let estimatorId: number;

const bin = fileURLToPath(new URL('../../bin/routelens.mjs', import.meta.url));
function routelens(...args: string[]) {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(async () => {
  const dir = tempDir();
  const file = join(dir, 'cal.jsonl');
  const lines = [
    episode('cal-a', 'a1', 0.8, ['gpt-5', 'gpt-5', 'gpt-5', 'gpt-5']),
    episode('cal-b', 'b1', 0.9, ['gpt-5', 'kimi-k2']),
    episode('cal-b', 'b2', null, ['gpt-5']),
    episode('cal-c', 'c1', 0.5, ['gpt-5']),
    episode('cal-d', 'd1', 0.5, ['claude-x']),
    episode('cal-e', 'e1', null, ['gpt-5']),
  ];
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  dbPath = join(dir, 'cal.db');
  db = openDatabase(dbPath);
  const report = await importPaths(db, [file]);
  expect(report.files[0]?.status, report.files[0]?.reason).toBe('imported');
  estimatorId = Number(
    db.prepare("INSERT INTO estimators (name, created_at, encoder, config_json, scored_at) VALUES ('hand', '2026-01-01', 'hash-1024', '{}', '2026-01-02')").run().lastInsertRowid,
  );
  const turnOf = db.prepare('SELECT t.id, t.model_id FROM turns t JOIN episodes e ON e.id = t.episode_id WHERE e.ext_id = ? AND t.t = ?');
  const other = db.prepare("SELECT id FROM models WHERE name = 'minimax-m2'").pluck().get() as number;
  for (const [, ep, t, sHat, sTilde] of HAND) {
    const row = turnOf.get(ep, t) as { id: number; model_id: number };
    db.prepare('UPDATE targets SET s_tilde = ? WHERE turn_id = ?').run(sTilde, row.id);
    db.prepare('INSERT INTO estimates (estimator_id, turn_id, model_id, s_hat) VALUES (?, ?, ?, ?)').run(estimatorId, row.id, row.model_id, sHat);
    // ŝ of a model the log did not choose: S̃ says nothing about it, so calibration must ignore it.
    db.prepare('INSERT INTO estimates (estimator_id, turn_id, model_id, s_hat) VALUES (?, ?, ?, ?)').run(estimatorId, row.id, other, 0.99);
  }
  // cal-d: scored, but only for a model the log did not choose; cal-e: scored, but its episode has no outcome.
  const d1 = turnOf.get('d1', 0) as { id: number; model_id: number };
  db.prepare('INSERT INTO estimates (estimator_id, turn_id, model_id, s_hat) VALUES (?, ?, ?, ?)').run(estimatorId, d1.id, other, 0.4);
  const e1 = turnOf.get('e1', 0) as { id: number; model_id: number };
  db.prepare('INSERT INTO estimates (estimator_id, turn_id, model_id, s_hat) VALUES (?, ?, ?, ?)').run(estimatorId, e1.id, e1.model_id, 0.4);
});

describe('calibration', () => {
  it('bins ŝ of the logged model against S̃, with MAE and Spearman ρ worked by hand', () => {
    const r = calibrationAnalysis(db, { runs: ['cal-a', 'cal-b'] });
    expect(r.estimator).toEqual({ id: estimatorId, name: 'hand' });
    expect(r.note).toBeNull();
    // b2 has no outcome, so no S̃: six turns count, and the result says one of the three episodes had none.
    expect(r.overall.n).toBe(6);
    expect(r.coverage).toEqual({ episodes: 3, unknown_outcome: 1, unknown_cost: 0 });
    // |ŝ − S̃| = 0.05 + 0.05 + 0.18 + 0.15 + 0.15 + 0.12 = 0.70 over 6.
    expect(r.overall.mae).toBeCloseTo(0.7 / 6, 12);
    // Ranks of ŝ 1 3 2 5 4 6 against S̃ 1 2 3 5 4 6: Σd² = 2, ρ = 1 − 6·2 / (6·35) = 33/35.
    expect(r.overall.spearman).toBeCloseTo(33 / 35, 12);
    const bins = r.overall.bins;
    expect(bins).toHaveLength(10);
    expect(bins.map((b) => b.n)).toEqual([1, 2, 0, 0, 0, 1, 0, 0, 0, 2]);
    expect(bins[0]).toMatchObject({ lo: 0, hi: 0.1, mean_s_hat: 0.05, mean_s_tilde: 0.1, ci: null });
    // Bin [0.1, 0.2): S̃ 0.2 and 0.3, mean 0.25, sd 0.0707, half-width 1.96 · 0.0707 / √2 = 0.098.
    expect(bins[1]!.mean_s_hat).toBeCloseTo(0.135, 12);
    expect(bins[1]!.mean_s_tilde).toBeCloseTo(0.25, 12);
    expect(bins[1]!.ci![0]).toBeCloseTo(0.152, 12);
    expect(bins[1]!.ci![1]).toBeCloseTo(0.348, 12);
    expect(bins[2]).toMatchObject({ n: 0, mean_s_hat: null, mean_s_tilde: null, ci: null });
    // ŝ = 1.02 lies past 1 and falls in the last bin with 0.95.
    expect(bins[9]!.mean_s_hat).toBeCloseTo(0.985, 12);
    expect(bins[9]!.mean_s_tilde).toBeCloseTo(0.85, 12);
    expect(bins[9]!.ci![0]).toBeCloseTo(0.752, 12);

    expect(r.runs.map((g) => g.run)).toEqual(['cal-a', 'cal-b']);
    const [a, b] = r.runs;
    expect(a!.n).toBe(4);
    expect(a!.mae).toBeCloseTo(0.43 / 4, 12);
    expect(a!.spearman).toBeCloseTo(0.8, 12);
    expect(b!.n).toBe(2);
    expect(b!.mae).toBeCloseTo(0.135, 12);
    expect(b!.spearman).toBeCloseTo(1, 12);
    // No model card beside a file: whether a run was trained on is unknown.
    expect(a!.in_training).toBeNull();
  });

  it('takes the bin count, and computes the same fit from plain arrays', () => {
    const r = calibrationAnalysis(db, { runs: ['cal-a'], bins: 2 });
    expect(r.overall.bins.map((b) => [b.lo, b.hi, b.n])).toEqual([[0, 0.5, 3], [0.5, 1, 1]]);
    const f = calibrationFit([0.05, 0.15, 0.12, 0.95], [0.1, 0.2, 0.3, 0.8], 2);
    expect(f).toEqual(r.overall);
    expect(calibrationFit([], [], 4)).toMatchObject({ n: 0, mae: null, spearman: null });
    expect(() => calibrationFit([1], [], 4)).toThrow(RangeError);
  });

  it('gives the true reason when there is nothing to show, and refuses unknown runs and estimators', () => {
    // The estimator in use (the one that scored last, nobody having picked one) has not scored cal-c.
    const none = calibrationAnalysis(db, { runs: ['cal-c'] });
    expect(none.estimator).toEqual({ id: estimatorId, name: 'hand' });
    expect(none.reason).toBe('not_scored');
    expect(none.note).toMatch(/estimator hand has not scored the selected runs\. Score them: routelens score --db \S+cal\.db --run cal-c/);
    const named = calibrationAnalysis(db, { runs: ['cal-c'], estimator: estimatorId });
    expect(named.note).toMatch(/has not scored the selected runs/);
    const notCandidate = calibrationAnalysis(db, { runs: ['cal-d'] });
    expect(notCandidate.reason).toBe('model_not_candidate');
    expect(notCandidate.note).toMatch(/logged models \(claude-x\) are none of estimator hand's candidates/);
    expect(calibrationAnalysis(db, { runs: ['cal-e'] }).reason).toBe('no_outcome');
    const empty = openDatabase(':memory:');
    try {
      const r = calibrationAnalysis(empty);
      expect(r.reason).toBe('no_estimator');
      expect(r.note).toMatch(/^No estimator: this database has none yet/);
    } finally {
      empty.close();
    }
    expect(() => calibrationAnalysis(db, { runs: ['nope'] })).toThrow(/no run named "nope"/);
    expect(() => calibrationAnalysis(db, { estimator: 999 })).toThrow(/no estimator with id 999/);
    expect(() => calibrationAnalysis(db, { bins: 1 })).toThrow(RangeError);
  });

  it('draws a reliability figure whose points give their values and n, and a CSV row per bin', async () => {
    const response = await runAnalysis(db, { id: 'calibration', runs: ['cal-a', 'cal-b'] });
    const scene = figureScene(response, { theme: chartTheme('light'), width: 720, modelColor: () => '#000' });
    const flat = (ms: Mark[]): Mark[] => ms.flatMap((m) => (m.type === 'group' ? flat(m.marks) : [m]));
    const points = flat(scene.marks).filter((m) => m.role === 'point');
    // Four bins of the runs together, plus cal-a's three and cal-b's two drawn apart.
    expect(points).toHaveLength(9);
    expect(points.some((p) => p.datum?.lines.includes('n = 2 turns'))).toBe(true);
    expect(flat(scene.marks).some((m) => m.type === 'text' && m.text.includes('MAE 0.117, ρ 0.94, n = 6'))).toBe(true);
    const csv = figureCsv(response).trim().split('\r\n');
    expect(csv[0]).toBe('estimator,run,in_training,turns,mae,spearman,bin_lo,bin_hi,n_turns,mean_s_hat,mean_s_tilde,ci_low,ci_high');
    expect(csv).toHaveLength(1 + 3 * 10);
    await expect(runAnalysis(db, { id: 'calibration', runs: ['nope'] })).rejects.toThrow(/no run named/);
  });

  it('routelens analyze calibration --json prints the same result; tables and errors for people', () => {
    const json = routelens('analyze', 'calibration', '--db', dbPath, '--run', 'cal-a', '--run', 'cal-b', '--json');
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(JSON.parse(JSON.stringify(calibrationAnalysis(db, { runs: ['cal-a', 'cal-b'] }))));
    const table = routelens('analyze', 'calibration', '--db', dbPath, '--bins', '5');
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/\(all selected\)\s+6\s+0\.1167\s+0\.943/);
    expect(table.stdout).toMatch(/\[0\.80, 1\.00\)\s+2\s+0\.985\s+0\.850/);
    const bad = routelens('analyze', 'calibration', '--db', dbPath, '--run', 'nope');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/no run named "nope"/);
    expect(routelens('analyze', 'calibration', '--db', dbPath, '--bins', '1').code).toBe(1);
    const help = routelens('analyze', '--help');
    expect(help.stdout).toMatch(/calibration\|embeddings/);
    expect(help.stdout).toMatch(/--color model\|outcome/);
  }, 60_000);
});
