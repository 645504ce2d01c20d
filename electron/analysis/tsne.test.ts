import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../estimator/seededRandom.ts';
import { defaultPerplexity, tsne } from './tsne.ts';

/** `clusters` Gaussian blobs of `per` points in `d` dimensions, centres 20 apart on the axes, spread 1. */
function blobs(clusters: number, per: number, d: number, seed: number): { x: Float64Array; label: Int32Array } {
  const rng = new SeededRandom(seed);
  const n = clusters * per;
  const x = new Float64Array(n * d);
  const label = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const c = i % clusters;
    label[i] = c;
    for (let k = 0; k < d; k++) x[i * d + k] = (k === c ? 20 : 0) + rng.normal();
  }
  return { x, label };
}

function centroidSeparation(y: Float64Array, label: Int32Array, clusters: number): { minBetween: number; maxWithin: number } {
  const n = label.length;
  const cx = new Float64Array(clusters);
  const cy = new Float64Array(clusters);
  const count = new Float64Array(clusters);
  for (let i = 0; i < n; i++) {
    const c = label[i]!;
    cx[c] = cx[c]! + y[2 * i]!;
    cy[c] = cy[c]! + y[2 * i + 1]!;
    count[c] = count[c]! + 1;
  }
  for (let c = 0; c < clusters; c++) {
    cx[c]! /= count[c]!;
    cy[c]! /= count[c]!;
  }
  let maxWithin = 0;
  for (let i = 0; i < n; i++) maxWithin = Math.max(maxWithin, Math.hypot(y[2 * i]! - cx[label[i]!]!, y[2 * i + 1]! - cy[label[i]!]!));
  let minBetween = Infinity;
  for (let a = 0; a < clusters; a++) for (let b = a + 1; b < clusters; b++) minBetween = Math.min(minBetween, Math.hypot(cx[a]! - cx[b]!, cy[a]! - cy[b]!));
  return { minBetween, maxWithin };
}

/** Share of points whose nearest other point in the map carries the same label. */
function nearestSameLabel(y: Float64Array, label: Int32Array): number {
  const n = label.length;
  let same = 0;
  for (let i = 0; i < n; i++) {
    let best = -1;
    let bestD = Infinity;
    for (let j = 0; j < n; j++) {
      if (j === i) continue;
      const d = (y[2 * i]! - y[2 * j]!) ** 2 + (y[2 * i + 1]! - y[2 * j + 1]!) ** 2;
      if (d < bestD) {
        bestD = d;
        best = j;
      }
    }
    if (label[best] === label[i]) same++;
  }
  return same / n;
}

describe('t-SNE', () => {
  it('keeps three well-separated clusters of model-like points apart (K = 30, exact)', () => {
    const { x, label } = blobs(3, 10, 16, 1);
    const r = tsne(x, 30, 16, { seed: 3 });
    expect(r.perplexity).toBeCloseTo(29 / 3, 10);
    const { minBetween, maxWithin } = centroidSeparation(r.y, label, 3);
    // Every point is nearer its own cluster's centre than any two centres are to each other.
    expect(minBetween).toBeGreaterThan(2 * maxWithin);
    expect(nearestSameLabel(r.y, label)).toBe(1);
  });

  it('keeps five clusters of 200 history-like points apart (the default sample of 1,000)', () => {
    const { x, label } = blobs(5, 200, 64, 2);
    const started = performance.now();
    const r = tsne(x, 1000, 64, { seed: 1 });
    const seconds = (performance.now() - started) / 1000;
    console.log(`t-SNE of 1,000 × 64-d points: ${seconds.toFixed(1)} s, ${r.iterations} iterations, KL ${r.kl.toFixed(3)}`);
    expect(nearestSameLabel(r.y, label)).toBeGreaterThan(0.99);
    const { minBetween, maxWithin } = centroidSeparation(r.y, label, 5);
    expect(minBetween).toBeGreaterThan(maxWithin);
  }, 120_000);

  it('Barnes–Hut keeps 2,000 points in five clusters apart, like the exact repulsion does', () => {
    const { x, label } = blobs(5, 400, 64, 6);
    const started = performance.now();
    const r = tsne(x, 2000, 64, { seed: 2 });
    const seconds = (performance.now() - started) / 1000;
    console.log(`Barnes–Hut t-SNE of 2,000 × 64-d points: ${seconds.toFixed(1)} s, KL ${r.kl.toFixed(3)}`);
    expect(nearestSameLabel(r.y, label)).toBeGreaterThan(0.99);
    const { minBetween, maxWithin } = centroidSeparation(r.y, label, 5);
    expect(minBetween).toBeGreaterThan(maxWithin);
    // On a small input forced through the tree, the map agrees with the exact one in what matters.
    const small = blobs(3, 20, 8, 7);
    const bh = tsne(small.x, 60, 8, { seed: 1, exactMax: 10 });
    const exact = tsne(small.x, 60, 8, { seed: 1 });
    expect(nearestSameLabel(bh.y, small.label)).toBe(1);
    expect(nearestSameLabel(exact.y, small.label)).toBe(1);
    expect(Math.abs(bh.kl - exact.kl)).toBeLessThan(0.1);
  }, 120_000);

  it('is deterministic per seed and differs between seeds', () => {
    const { x } = blobs(2, 6, 8, 4);
    for (const exactMax of [500, 4]) {
      const a = tsne(x, 12, 8, { seed: 9, exactMax });
      const b = tsne(x, 12, 8, { seed: 9, exactMax });
      const c = tsne(x, 12, 8, { seed: 10, exactMax });
      expect(Array.from(b.y)).toEqual(Array.from(a.y));
      expect(Array.from(c.y)).not.toEqual(Array.from(a.y));
    }
  });

  it('centres the map at unit RMS radius and handles tiny inputs', () => {
    const { x } = blobs(2, 3, 4, 5);
    const r = tsne(x, 6, 4, { seed: 1 });
    let mx = 0;
    let my = 0;
    let ss = 0;
    for (let i = 0; i < 6; i++) {
      mx += r.y[2 * i]!;
      my += r.y[2 * i + 1]!;
      ss += r.y[2 * i]! ** 2 + r.y[2 * i + 1]! ** 2;
    }
    expect(Math.abs(mx) + Math.abs(my)).toBeLessThan(1e-9);
    expect(Math.sqrt(ss / 6)).toBeCloseTo(1, 9);
    expect(defaultPerplexity(6)).toBeCloseTo(5 / 3, 12);
    expect(Array.from(tsne(x, 2, 4).y)).toEqual([-1, 0, 1, 0]);
    expect(tsne(x, 0, 4).y).toHaveLength(0);
    expect(() => tsne(x, 7, 4)).toThrow(RangeError);
  });
});
