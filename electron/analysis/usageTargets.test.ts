// The usage targets ρ a log states (policy.usage_targets): kept at import, given back by the canonical export, and
// drawn by usage-ratio as each run's targets unless the request sets its own (issue 35 item 8).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseCanonicalEpisode } from '../../shared/canonical.ts';
import { openDatabase } from '../db/database.ts';
import type { Db } from '../db/dbHandle.ts';
import { exportCanonical } from '../export/canonicalExport.ts';
import { importPaths } from '../importers/pipeline.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';
import { usageRatioAnalysis } from './controllerAnalyses.ts';
import { agreedTargets, usageTargetsText } from './usageTargets.ts';

const tempDir = useSuiteTempDir();

describe('agreedTargets', () => {
  it('is the one set a run’s episodes state, in any key order', () => {
    expect(agreedTargets(['{"a":0.5,"b":1}', '{"b":1,"a":0.5}', null])).toEqual({ a: 0.5, b: 1 });
  });

  it('is none when they state different sets, none at all, or something that is not a share', () => {
    expect(agreedTargets(['{"a":0.5}', '{"a":0.25}'])).toBeNull();
    expect(agreedTargets([null])).toBeNull();
    expect(agreedTargets(['{"a":2}'])).toBeNull();
    expect(agreedTargets(['[0.5]'])).toBeNull();
    expect(agreedTargets(['{}'])).toBeNull();
  });

  it('keeps a model named __proto__', () => {
    expect(Object.entries(agreedTargets(['{"__proto__":0.3}']) ?? {})).toEqual([['__proto__', 0.3]]);
    expect(usageTargetsText('{"agent":{"name":"x"},"usage_targets":{"__proto__":0.3}}')).toBe('{"__proto__":0.3}');
  });

  it('reads them from an episode’s detail JSON as the ClickHouse store returns it', () => {
    expect(usageTargetsText('{"usage_targets":{"a":0.5}}')).toBe('{"a":0.5}');
    expect(usageTargetsText('{"usage_totals":[]}')).toBeNull();
    expect(usageTargetsText('not json')).toBeNull();
  });
});

describe('usage targets from the log', () => {
  let db: Db;
  let dir: string;
  const turn = (t: number, model: string) => ({ t, model, action: { type: 'message' }, errors: [] });
  const ep = (run: string, id: string, models: string[], targets?: Record<string, number>) =>
    JSON.stringify({
      schema: 'routelens/v1', run, episode_id: id, task: {}, outcome: { success: true },
      policy: { name: 'controller', ...(targets ? { usage_targets: targets } : {}) }, turns: models.map((m, t) => turn(t, m)),
    });
  beforeAll(async () => {
    dir = tempDir();
    const file = join(dir, 'u.jsonl');
    writeFileSync(file, [
      ep('ctl', 'c1', ['weak', 'weak', 'strong'], { weak: 1, strong: 0.25 }),
      ep('ctl', 'c2', ['strong'], { strong: 0.25, weak: 1 }),
      ep('plain', 'p1', ['weak', 'strong']),
      ep('mixed', 'm1', ['weak'], { weak: 0.5 }),
      ep('mixed', 'm2', ['weak'], { weak: 0.4 }),
    ].join('\n'));
    db = openDatabase(join(dir, 'u.db'));
    await importPaths(db, [file]);
  });

  it('draws the run’s logged ρ as its targets, and says where each ρ comes from', () => {
    const runs = usageRatioAnalysis(db).runs;
    const ctl = runs.find((r) => r.run === 'ctl')!;
    expect({ ...ctl.logged_rho }).toEqual({ weak: 1, strong: 0.25 });
    expect(ctl.usage).toEqual([
      { model: 'weak', calls: 2, ratio: 0.5, rho: 1, over_target: false, rho_from: 'log' },
      { model: 'strong', calls: 2, ratio: 0.5, rho: 0.25, over_target: true, rho_from: 'log' },
    ]);
    // A run that states none, or states two different sets, has no logged targets.
    for (const run of ['plain', 'mixed']) {
      const r = runs.find((x) => x.run === run)!;
      expect(r.logged_rho).toBeUndefined();
      expect(r.usage.every((u) => u.rho === null && u.rho_from === undefined)).toBe(true);
    }
  });

  it('lets the request’s ρ win, model by model', () => {
    const ctl = usageRatioAnalysis(db, { runs: ['ctl'], rho: { strong: 0.6 } }).runs[0]!;
    expect(ctl.usage.map((u) => [u.model, u.rho, u.rho_from, u.over_target])).toEqual([['weak', 1, 'log', false], ['strong', 0.6, 'request', false]]);
  });

  it('gives the targets back in the canonical export', async () => {
    const out = join(dir, 'u-out.jsonl');
    await exportCanonical(db, out);
    const back = readFileSync(out, 'utf8').trim().split('\n').map((line) => parseCanonicalEpisode(JSON.parse(line) as unknown));
    expect(back.every((r) => r.success)).toBe(true);
    const episodes = back.flatMap((r) => (r.success ? [r.data] : []));
    expect({ ...episodes.find((e) => e.episode_id === 'c1')?.policy?.usage_targets }).toEqual({ weak: 1, strong: 0.25 });
    expect(episodes.find((e) => e.episode_id === 'p1')?.policy?.usage_targets).toBeUndefined();
  });
});
