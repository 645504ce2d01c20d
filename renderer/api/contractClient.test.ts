// The window sees the core's answers only after the contract client has checked them with the shared zod
// schemas (issue 38 item 4). zod's own record schema leaves out a `__proto__` key, so a model of that name lost
// its usage-by-turn share (the shares then summed to less than 1) and its candidate score. The answers here are
// the real core's, over the bundled canonical example with three of its models renamed, moved as JSON text the
// way the HTTP and IPC transports move them.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../electron/db/database.ts';
import { importPaths } from '../../electron/importers/pipeline.ts';
import { createApi } from '../../electron/services/api.ts';
import { dispatch } from '../../electron/services/dispatch.ts';
import { useSuiteTempDir } from '../../electron/testing/tmp.ts';
import type { UsageByTurnResult, UsageRatioResult } from '../../shared/analysisResults.ts';
import type { RouteLensApi } from '../../shared/api.ts';
import { ApiCallError, contractClient } from './contractClient.ts';

const example = fileURLToPath(new URL('../../fixtures/canonical/example.jsonl', import.meta.url));
const tempDir = useSuiteTempDir();

/** Models of the example renamed to names that are JavaScript words, wherever the log names them. */
const RENAMED = { 'gpt-5': '__proto__', 'deepseek-v3.2': 'constructor', 'minimax-m2': 'toString' } as const;
const WORDS = Object.values(RENAMED);

let api: RouteLensApi;
/** The example's candidate scores of the first turn of each episode that has them, under the new names. */
const logged = new Map<string, Record<string, number>>();

beforeAll(async () => {
  let text = readFileSync(example, 'utf8');
  for (const [from, to] of Object.entries(RENAMED)) text = text.replaceAll(`"${from}"`, `"${to}"`);
  for (const line of text.trim().split('\n')) {
    const ep = JSON.parse(line) as { episode_id: string; turns: { candidates?: Record<string, number> }[] };
    const first = ep.turns[0]?.candidates;
    if (first) logged.set(ep.episode_id, first);
  }
  const log = join(tempDir(), 'words.jsonl');
  writeFileSync(log, text);
  const db = openDatabase(join(tempDir(), 'words.db'));
  const report = await importPaths(db, [log]);
  expect(report.files.map((f) => f.status)).toEqual(['imported']);
  const core = createApi(db);
  api = contractClient(async (name, input) => {
    const answer = await dispatch(core, name, input);
    if (!answer.ok) throw new ApiCallError(name, answer.error.kind, answer.error.message);
    return JSON.parse(JSON.stringify(answer.value));
  });
});

describe('the contract client keeps models named like JavaScript words', () => {
  it('usage-by-turn: each word keeps its share and the shares sum to 1 at every turn', async () => {
    const answer = await api.runAnalysis({ id: 'usage-by-turn' });
    expect(answer.request.id).toBe('usage-by-turn');
    const seen = new Set<string>();
    for (const run of (answer.result as UsageByTurnResult).runs) {
      for (const t of run.turns) {
        Object.keys(t.shares).forEach((m) => seen.add(m));
        expect(Object.values(t.shares).reduce((a, b) => a + b, 0), `${run.run} t=${t.t}`).toBeCloseTo(1, 9);
      }
    }
    for (const word of WORDS) expect(seen).toContain(word);
  });

  it('turn details: every candidate keeps its logged score; a word not among them reads as absent', async () => {
    expect(logged.size).toBeGreaterThan(0);
    for (const [ext_id, candidates] of logged) {
      const turn = (await api.getEpisode({ ext_id })).turns[0];
      expect(Object.keys(turn?.candidates ?? {}).sort(), ext_id).toEqual(Object.keys(candidates).sort());
      for (const word of WORDS) expect(turn?.candidates[word], `${ext_id} ${word}`).toBe(candidates[word]);
    }
    const unscored = (await api.getEpisode({ ext_id: 'hle_000' })).turns[0];
    expect(unscored?.candidates.constructor).toBeUndefined();
    expect(unscored?.candidates.toString).toBeUndefined();
  });

  it('usage-ratio: a target share ρ for each word reaches the core and comes back on its model', async () => {
    const rho = JSON.parse('{"__proto__": 0.5, "constructor": 0.25}') as Record<string, number>;
    const answer = await api.runAnalysis({ id: 'usage-ratio', runs: ['sw-router-demo'], rho });
    expect(answer.request.id).toBe('usage-ratio');
    expect(Object.keys(answer.request.rho ?? {})).toEqual(['__proto__', 'constructor']);
    const usage = (answer.result as UsageRatioResult).runs.flatMap((r) => r.usage);
    const rhoOf = (model: string) => usage.find((u) => u.model === model)?.rho;
    expect(rhoOf('__proto__')).toBe(0.5);
    expect(rhoOf('constructor')).toBe(0.25);
    expect(rhoOf('toString')).toBeNull();
  });
});
