// What-if's nearest evidence: one turn per episode, never the turn's own episode, episodes of the turn's task
// type before any other however similar, each group by similarity.
import { describe, expect, it } from 'vitest';
import { SKETCH_DIM } from './historyRows.ts';
import { nearest, type SketchIndex } from './whatIf.ts';

/** Sketched turns: [episode, model, task type index (−1 none), similarity-driving first component]. */
function index(rows: [number, number, number, number][]): SketchIndex {
  const n = rows.length;
  const vec = new Int8Array(n * SKETCH_DIM);
  rows.forEach(([, , , x], i) => {
    // Unit-length direction (x, y): cosine with the query (127, 0) is x / 127.
    vec[i * SKETCH_DIM] = x;
    vec[i * SKETCH_DIM + 1] = Math.round(Math.sqrt(127 * 127 - x * x));
  });
  return {
    key: 'test',
    turnId: Int32Array.from(rows, (_, i) => i + 1),
    modelId: Int32Array.from(rows, (r) => r[1]),
    episodeId: Int32Array.from(rows, (r) => r[0]),
    taskType: Int32Array.from(rows, (r) => r[2]),
    taskTypes: ['scienceworld', 'swe'],
    t: Int32Array.from(rows, (_, i) => i),
    vec,
  };
}
const query = new Int8Array(SKETCH_DIM);
query[0] = 127;

describe('nearest', () => {
  const SW = 0;
  const SWE = 1;
  const idx = index([
    [10, 1, SW, 127], // the most similar of all, but ScienceWorld
    [11, 1, SW, 120],
    [20, 1, SWE, 60],
    [21, 1, SWE, 90],
    [21, 1, SWE, 100], // a second turn of episode 21: only its best counts
    [22, 2, SWE, 127], // another model
    [30, 1, SWE, 126], // the turn's own episode
  ]);

  it('puts the same task type first, then fills from others, one turn per episode', () => {
    const got = nearest(idx, query, 1, 30, 3, SWE);
    expect(got.map((g) => [idx.episodeId[g.i], g.sameType])).toEqual([
      [21, true],
      [20, true],
      [10, false],
    ]);
    expect(got[0]!.sim).toBeCloseTo(100 / 127, 2);
  });

  it('ranks by similarity alone when the turn has no task type', () => {
    const got = nearest(idx, query, 1, 30, 3, -1);
    expect(got.map((g) => idx.episodeId[g.i])).toEqual([10, 11, 21]);
    expect(got.every((g) => !g.sameType)).toBe(true);
  });

  it('gives at most k, and only the same type when it has k', () => {
    expect(nearest(idx, query, 1, 30, 2, SWE).map((g) => idx.episodeId[g.i])).toEqual([21, 20]);
    expect(nearest(idx, new Int8Array(SKETCH_DIM), 1, 30, 2, SWE)).toEqual([]);
  });
});
