// `routelens train | score | whatif` as a user runs them: child processes, real files, exit codes, JSON on stdout.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT as root, runCli } from '../testing/cliChild.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';

const tempDir = useSuiteTempDir();

function routelens(...args: string[]) {
  return runCli(args, { timeoutMs: 240_000 });
}

describe('routelens train, score, whatif', () => {
  const dir = tempDir();
  const db = join(dir, 'cli.db');
  const model = join(dir, 'm.onnx');

  beforeAll(() => {
    const sim = routelens('simulate', '--preset', 'hle', '--episodes', '40', '--seed', '2', '--out', join(dir, 'hle.jsonl'));
    expect(sim.code, sim.stderr).toBe(0);
    expect(routelens('import', join(dir, 'hle.jsonl'), '--db', db).code).toBe(0);
  }, 240_000);

  it('whatif on a database no estimator has scored registers the shipped default through a writer, then reads', () => {
    const fresh = join(dir, 'fresh.db');
    expect(routelens('import', join(dir, 'hle.jsonl'), '--db', fresh).code).toBe(0);
    const episode = readFileSync(join(dir, 'hle.jsonl'), 'utf8').match(/"episode_id":"([^"]+)"/)?.[1] ?? '';
    const w = routelens('whatif', '--db', fresh, '--episode', episode, '--turn', '0', '--json');
    expect(w.code, w.stderr).toBe(0);
    const r = JSON.parse(w.stdout);
    expect(r).toMatchObject({ source: 'computed', estimator: { name: 'default-estimator' } });
    expect(r.candidates.length).toBeGreaterThan(1);
  }, 240_000);

  it('estimators lists them with the one in use; --use makes a choice every later command reads', () => {
    const picked = join(dir, 'picked.db');
    expect(routelens('import', join(dir, 'hle.jsonl'), '--db', picked).code).toBe(0);
    expect(routelens('estimators', '--db', picked).stdout).toMatch(/no estimator yet/);
    const episode = readFileSync(join(dir, 'hle.jsonl'), 'utf8').match(/"episode_id":"([^"]+)"/)?.[1] ?? '';
    expect(routelens('whatif', '--db', picked, '--episode', episode, '--turn', '0', '--json').code).toBe(0); // registers the default
    const before = JSON.parse(routelens('estimators', '--db', picked, '--json').stdout);
    expect(before.estimators).toHaveLength(1);
    const id = before.estimators[0].id;
    expect(before.in_use).toEqual({ id, chosen: false });
    const chose = routelens('estimators', '--db', picked, '--use', String(id));
    expect(chose.code, chose.stderr).toBe(0);
    expect(chose.stdout).toMatch(/\* in use$/m);
    expect(JSON.parse(routelens('estimators', '--db', picked, '--json').stdout).in_use).toEqual({ id, chosen: true });
    const wrong = routelens('estimators', '--db', picked, '--use', String(id + 41));
    expect(wrong.code).toBe(1);
    expect(wrong.stderr.trim().split('\n')).toHaveLength(1);
    expect(wrong.stderr).toMatch(/no estimator/);
  }, 240_000);

  it('train prints the loss per epoch on stderr and the model card as JSON', () => {
    const r = routelens('train', '--db', db, '--out', model, '--epochs', '2', '--seed', '1', '--truth', join(dir, 'hle.truth.json'), '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/epoch {3}1 {2}train MSE [\d.]+ {2}val MAE [\d.]+/);
    expect(r.stderr).toMatch(/epoch {3}2 /);
    const card = JSON.parse(r.stdout);
    expect(card).toMatchObject({ onnx: model, card: join(dir, 'm.card.json'), schema: 'routelens-estimator-card/1' });
    expect(card.decision_quality.truth_preset).toBe('hle');
    expect(existsSync(model)).toBe(true);
  }, 240_000);

  it('score says which provider ran and how fast', () => {
    const s = routelens('score', '--db', db, '--model', model, '--ep', 'cpu', '--json');
    expect(s.code, s.stderr).toBe(0);
    const scored = JSON.parse(s.stdout);
    expect(scored).toMatchObject({ provider: 'cpu', cancelled: false });
    expect(scored.rowsPerSec).toBeGreaterThan(0);
  }, 240_000);

  it('whatif on a turn: every candidate with ŝ, Δŝ, cost and neighbours', () => {
    const list = routelens('analyze', 'targets', '--db', db, '--episode', 'x');
    expect(list.code).toBe(1); // unknown episode: a user error, one line, no stack
    expect(list.stderr).not.toMatch(/\n\s+at /);
    const ids = spawnSync(process.execPath, ['-e', `
      const D = require('better-sqlite3'); const db = new D(${JSON.stringify(db)}, { readonly: true });
      console.log(db.prepare('SELECT ext_id FROM episodes WHERE n_turns >= 3 ORDER BY id LIMIT 1').pluck().get());`], { encoding: 'utf8', cwd: root });
    const episode = ids.stdout.trim();
    const w = routelens('whatif', '--db', db, '--episode', episode, '--turn', '2', '--json');
    expect(w.code, w.stderr).toBe(0);
    const r = JSON.parse(w.stdout);
    expect(Object.keys(r)).toEqual(['episode', 'turn', 'logged_model', 'task_type', 'provider', 'estimator', 'domain', 'extrapolation', 'source', 'candidates']);
    expect(Array.isArray(r.extrapolation)).toBe(true);
    expect(r).toMatchObject({ episode, turn: 2, provider: 'cpu', source: 'estimates' });
    expect(r.candidates).toHaveLength(6);
    for (const c of r.candidates) {
      expect(Object.keys(c)).toEqual(['model', 's_hat', 'delta', 'cost_usd', 'neighbours']);
      for (const n of c.neighbours) expect(Object.keys(n)).toEqual(['episode', 'turn', 'outcome', 'similarity', 'same_task_type']);
    }
    expect(r.candidates.find((c: { model: string }) => c.model === r.logged_model).delta).toBe(0);
  }, 240_000);

  it('input mistakes exit 1 with one line on stderr', () => {
    for (const args of [
      ['train', '--db', db, '--out', join(dir, 'x.txt')],
      ['train', '--db', db, '--out', join(dir, 'y.onnx'), '--encoder', 'word2vec'],
      ['score', '--db', db, '--model', join(dir, 'missing.onnx')],
      ['score', '--db', db, '--model', join(dir, 'hle.jsonl')],
      ['whatif', '--db', db, '--episode', 'nope', '--turn', '0'],
      ['train', '--db', db, '--out', join(dir, 'y.onnx'), '--profile', 'reference'],
      ['train', '--db', db, '--out', join(dir, 'y.onnx'), '--run', 'nope'],
    ]) {
      const r = routelens(...args);
      expect(r.code, `${args.join(' ')}\n${r.stderr}`).toBe(1);
      expect(r.stderr.trim().split('\n').filter((l) => !/Vulkan|dawn/i.test(l)).length, r.stderr).toBeLessThanOrEqual(2);
    }
  }, 240_000);
});

describe('routelens train on logs without outcomes', () => {
  it('says what is missing and how to supply it, exit 1, no stack trace', () => {
    const dir = tempDir();
    const file = join(dir, 'no-outcome.jsonl');
    const turns = ['gpt-5', 'kimi-k2'].map((model, t) => ({ t, model, action: { type: 'message', tool: null, text: 'hi' }, observation: 'ok' }));
    const episode = (id: string) => ({ schema: 'routelens/v1', run: 'r', episode_id: id, task: { id, type: 'qa', text: 'Say hi' }, turns });
    writeFileSync(file, `${JSON.stringify(episode('a'))}\n${JSON.stringify(episode('b'))}\n`);
    const db = join(dir, 'x.db');
    expect(routelens('import', file, '--db', db).code).toBe(0);
    const r = routelens('train', '--db', db, '--out', join(dir, 'm.onnx'));
    expect(r.code, r.stderr).toBe(1);
    const lines = r.stderr.trim().split('\n').filter((l) => !/^encoding histories|Vulkan|dawn/i.test(l));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^routelens train: ${db.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: no episode has an outcome`));
    expect(lines[0]).toMatch(/"outcome" with "score"/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(join(dir, 'm.onnx'))).toBe(false);
  }, 240_000);
});

describe('routelens train --store when the store cannot be read', () => {
  it('says so in one line, exit 1, and leaves no spilled parts behind', () => {
    const spill = join(tempDir(), 'spill');
    mkdirSync(spill);
    const r = routelens('train', '--store', 'clickhouse://127.0.0.1:1/routelens', '--out', join(spill, '..', 'm.onnx'), '--spill-dir', spill);
    expect(r.code, r.stderr).toBe(1);
    const lines = r.stderr.trim().split('\n').filter((l) => !/^encoding histories|^reading|Vulkan|dawn/i.test(l));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^routelens train: clickhouse:\/\/127\.0\.0\.1:1\/routelens.*connection refused/);
    expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
    expect(readdirSync(spill)).toEqual([]);
  }, 240_000);
});
