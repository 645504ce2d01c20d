/**
 * t-SNE to two dimensions (van der Maaten & Hinton 2008), for the `embeddings` analysis: the K model
 * embeddings z_a (K ≤ 50, exact) and samples of ≤ 2,000 turn-history sketches.
 *
 * Organisation. Input similarities P come from each point's 3 × perplexity nearest points (all other points
 * when there are few, so small inputs get the exact algorithm), each row calibrated by binary search on the
 * Gaussian precision to the perplexity, then symmetrised. The repulsive forces and the normaliser Z are exact
 * up to EXACT_MAX_POINTS (one pass over all pairs an iteration, no n × n matrix stored) and Barnes–Hut above
 * (a quadtree, θ = 0.5; van der Maaten 2014).
 * Optimisation is the paper's: early exaggeration 12, momentum 0.5 → 0.8, per-coordinate gains, learning
 * rate max(n / 12 / 4, 50) (scikit-learn's "auto").
 *
 * Deterministic: the start positions are drawn from the seed, every loop runs in a fixed order, and the
 * result is centred and scaled to unit RMS radius, so one seed gives the same picture every time.
 */
import { SeededRandom } from '../estimator/seededRandom.ts';

export interface TsneOptions {
  /** Default min(30, (n − 1) / 3), at least 1: a perplexity must stay below the number of other points. */
  perplexity?: number;
  seed?: number;
  /** Default 1000 for ≤ 200 points, else 500 (the map of 1,000 history sketches settles by then). */
  iterations?: number;
  /** Called every 50 iterations with the fraction done. */
  onProgress?: (fraction: number) => void;
  /** Above this many points the repulsion is Barnes–Hut (θ = 0.5) instead of exact; default EXACT_MAX_POINTS. */
  exactMax?: number;
}

/**
 * Exact repulsion up to here, Barnes–Hut above. 2,000 clustered 64-d points, 500 iterations, on this 2-core
 * machine under load: exact 9.7 s, Barnes–Hut 4.2 s (1.4 s of it the input affinities); at 500 points exact
 * iterations are the faster (1.4 against 2.4 ms).
 */
export const EXACT_MAX_POINTS = 500;

export interface TsneResult {
  /** [n × 2], centred, RMS distance from the centre 1. */
  y: Float64Array;
  perplexity: number;
  iterations: number;
  /** KL(P‖Q) at the end (lower is a more faithful map). */
  kl: number;
}

/** The perplexity used for n points when none is given (MTRouter's 6 models get 1.67). */
export function defaultPerplexity(n: number): number {
  return Math.max(1, Math.min(30, (n - 1) / 3));
}

/** Squared Euclidean distance between rows i and j of x ([n × d]). */
function dist2(x: ArrayLike<number>, d: number, i: number, j: number): number {
  let s = 0;
  const a = i * d;
  const b = j * d;
  for (let k = 0; k < d; k++) {
    const v = (x[a + k] as number) - (x[b + k] as number);
    s += v * v;
  }
  return s;
}

interface SparseP {
  /** CSR rows of the symmetrised P. */
  indptr: Int32Array;
  indices: Int32Array;
  values: Float64Array;
}

/** Row-conditional P over each point's nearest neighbours, calibrated to `perplexity`, then (P + Pᵀ) / 2n. */
function affinities(x: ArrayLike<number>, n: number, d: number, perplexity: number): SparseP {
  const k = Math.min(n - 1, Math.max(1, Math.floor(3 * perplexity)));
  const nbr = new Int32Array(n * k);
  const nd = new Float64Array(n * k);
  const all = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) all[j] = j === i ? Infinity : dist2(x, d, i, j);
    // The k nearest by insertion into a sorted list of k (ties by index, so the lists never depend on a sort's
    // stability): O(n·k) at worst, against 3 s for a full sort per point at n = 2,000.
    const o = i * k;
    let filled = 0;
    for (let j = 0; j < n; j++) {
      const dj = all[j] as number;
      if (j === i || (filled === k && dj >= (nd[o + k - 1] as number))) continue;
      let m = filled < k ? filled++ : k - 1;
      while (m > 0 && (nd[o + m - 1] as number) > dj) {
        nd[o + m] = nd[o + m - 1] as number;
        nbr[o + m] = nbr[o + m - 1] as number;
        m--;
      }
      nd[o + m] = dj;
      nbr[o + m] = j;
    }
  }

  const cond = new Float64Array(n * k);
  const target = Math.log(perplexity);
  for (let i = 0; i < n; i++) {
    const o = i * k;
    let beta = 1;
    let lo = -Infinity;
    let hi = Infinity;
    // Distances relative to the nearest keep exp() from underflowing for far-apart inputs.
    const d0 = nd[o] as number;
    for (let step = 0; step < 200; step++) {
      let sum = 0;
      let dot = 0;
      for (let m = 0; m < k; m++) {
        const p = Math.exp(-beta * ((nd[o + m] as number) - d0));
        cond[o + m] = p;
        sum += p;
        dot += p * ((nd[o + m] as number) - d0);
      }
      const entropy = Math.log(sum) + (beta * dot) / sum;
      for (let m = 0; m < k; m++) cond[o + m] = (cond[o + m] as number) / sum;
      const diff = entropy - target;
      if (Math.abs(diff) < 1e-5) break;
      if (diff > 0) {
        lo = beta;
        beta = hi === Infinity ? beta * 2 : (beta + hi) / 2;
      } else {
        hi = beta;
        beta = lo === -Infinity ? beta / 2 : (beta + lo) / 2;
      }
    }
  }

  // Symmetrise: p_ij = (p_j|i + p_i|j) / 2n, over the union of both neighbour lists.
  const rows: Map<number, number>[] = Array.from({ length: n }, () => new Map());
  for (let i = 0; i < n; i++) {
    for (let m = 0; m < k; m++) {
      const j = nbr[i * k + m] as number;
      const p = (cond[i * k + m] as number) / (2 * n);
      rows[i]!.set(j, (rows[i]!.get(j) ?? 0) + p);
      rows[j]!.set(i, (rows[j]!.get(i) ?? 0) + p);
    }
  }
  const indptr = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) indptr[i + 1] = (indptr[i] as number) + rows[i]!.size;
  const indices = new Int32Array(indptr[n] as number);
  const values = new Float64Array(indptr[n] as number);
  for (let i = 0; i < n; i++) {
    const entries = [...rows[i]!.entries()].sort((a, b) => a[0] - b[0]);
    entries.forEach(([j, p], m) => {
      indices[(indptr[i] as number) + m] = j;
      values[(indptr[i] as number) + m] = p;
    });
  }
  return { indptr, indices, values };
}

/**
 * A 2-D map of the n rows of `x` ([n × d]). n = 0 gives an empty map; n ≤ 2 places the points on a line
 * (t-SNE needs at least three).
 */
export function tsne(x: ArrayLike<number>, n: number, d: number, options: TsneOptions = {}): TsneResult {
  if (x.length < n * d) throw new RangeError(`t-SNE input has ${x.length} values, expected ${n} × ${d}`);
  const perplexity = Math.min(options.perplexity ?? defaultPerplexity(n), Math.max(1, (n - 1) / 3));
  const iterations = options.iterations ?? (n <= 200 ? 1000 : 500);
  const y = new Float64Array(n * 2);
  if (n <= 2) {
    if (n === 2) {
      y[0] = -1;
      y[2] = 1;
    }
    return { y, perplexity, iterations: 0, kl: 0 };
  }
  const P = affinities(x, n, d, perplexity);
  const rng = new SeededRandom(options.seed ?? 0, 7);
  for (let i = 0; i < n * 2; i++) y[i] = rng.normal() * 1e-4;

  const exaggerationIters = Math.min(250, Math.floor(iterations / 4));
  const lr = Math.max(n / 12 / 4, 50);
  const update = new Float64Array(n * 2);
  const gains = new Float64Array(n * 2).fill(1);
  const grad = new Float64Array(n * 2);
  const rep = new Float64Array(n * 2);
  const exactMax = options.exactMax ?? EXACT_MAX_POINTS;
  const tree = new QuadTree(n);
  let z = 0;

  for (let it = 0; it < iterations; it++) {
    const exaggeration = it < exaggerationIters ? 12 : 1;
    const momentum = it < exaggerationIters ? 0.5 : 0.8;
    // Repulsion Σ_j q̃_ij² (y_i − y_j) and Z = Σ_{i≠j} q̃_ij, with q̃ = 1 / (1 + |y_i − y_j|²): exact over all
    // pairs for small maps, Barnes–Hut above EXACT_MAX_POINTS.
    z = n <= exactMax ? exactRepulsion(y, n, rep) : tree.repulsion(y, n, rep);
    // Attraction over the sparse P: Σ_j p_ij q̃_ij (y_i − y_j); the gradient is 4 (attraction − repulsion / Z).
    for (let i = 0; i < n; i++) {
      let a0 = 0;
      let a1 = 0;
      for (let m = P.indptr[i] as number; m < (P.indptr[i + 1] as number); m++) {
        const j = P.indices[m] as number;
        const d0 = (y[2 * i] as number) - (y[2 * j] as number);
        const d1 = (y[2 * i + 1] as number) - (y[2 * j + 1] as number);
        const w = (exaggeration * (P.values[m] as number)) / (1 + d0 * d0 + d1 * d1);
        a0 += w * d0;
        a1 += w * d1;
      }
      grad[2 * i] = 4 * (a0 - (rep[2 * i] as number) / z);
      grad[2 * i + 1] = 4 * (a1 - (rep[2 * i + 1] as number) / z);
    }
    for (let c = 0; c < n * 2; c++) {
      const g = grad[c] as number;
      const u = update[c] as number;
      // Delta-bar-delta: grow the step where the gradient keeps its direction, shrink it where it flips.
      gains[c] = Math.max(0.01, Math.sign(g) !== Math.sign(u) ? (gains[c] as number) + 0.2 : (gains[c] as number) * 0.8);
      update[c] = momentum * u - lr * (gains[c] as number) * g;
      y[c] = (y[c] as number) + (update[c] as number);
    }
    if (options.onProgress && (it + 1) % 50 === 0) options.onProgress((it + 1) / iterations);
  }

  // KL(P‖Q) with the final Z (Q recomputed only on P's support: the other terms are zero).
  let kl = 0;
  for (let i = 0; i < n; i++) {
    for (let m = P.indptr[i] as number; m < (P.indptr[i + 1] as number); m++) {
      const p = P.values[m] as number;
      if (p <= 0) continue;
      const j = P.indices[m] as number;
      const d0 = (y[2 * i] as number) - (y[2 * j] as number);
      const d1 = (y[2 * i + 1] as number) - (y[2 * j + 1] as number);
      const q = 1 / (1 + d0 * d0 + d1 * d1) / z;
      kl += p * Math.log(p / Math.max(q, 1e-300));
    }
  }
  normalise(y, n);
  return { y, perplexity, iterations, kl };
}

/** Exact repulsion over all pairs into `rep` (zeroed here); returns Z. */
function exactRepulsion(y: Float64Array, n: number, rep: Float64Array): number {
  rep.fill(0);
  let z = 0;
  for (let i = 0; i < n; i++) {
    const yi0 = y[2 * i] as number;
    const yi1 = y[2 * i + 1] as number;
    let r0 = 0;
    let r1 = 0;
    for (let j = i + 1; j < n; j++) {
      const d0 = yi0 - (y[2 * j] as number);
      const d1 = yi1 - (y[2 * j + 1] as number);
      const q = 1 / (1 + d0 * d0 + d1 * d1);
      z += 2 * q;
      const q2 = q * q;
      r0 += q2 * d0;
      r1 += q2 * d1;
      rep[2 * j] = (rep[2 * j] as number) - q2 * d0;
      rep[2 * j + 1] = (rep[2 * j + 1] as number) - q2 * d1;
    }
    rep[2 * i] = (rep[2 * i] as number) + r0;
    rep[2 * i + 1] = (rep[2 * i + 1] as number) + r1;
  }
  return z;
}

const THETA2 = 0.5 * 0.5;
const MAX_DEPTH = 40;

/**
 * A quadtree over the map's points, rebuilt every iteration, for Barnes–Hut repulsion (van der Maaten 2014):
 * a cell that looks small from a point (side / distance < θ) acts as one point of its total count at its
 * centre of mass. Nodes live in typed arrays reused between iterations.
 */
class QuadTree {
  private cap: number;
  private used = 0;
  private x0!: Float64Array;
  private y0!: Float64Array;
  private side!: Float64Array;
  private mx!: Float64Array;
  private my!: Float64Array;
  private count!: Int32Array;
  /** First of four consecutive children, or -1 for a leaf. */
  private child!: Int32Array;
  /** The point a leaf holds (the first, when coincident points share a leaf at MAX_DEPTH), or -1. */
  private point!: Int32Array;
  private stack: Int32Array;

  constructor(n: number) {
    this.cap = Math.max(64, 8 * n);
    this.alloc(this.cap);
    this.stack = new Int32Array(4 * MAX_DEPTH + 8);
  }

  private alloc(cap: number): void {
    const grow = <T extends Float64Array | Int32Array>(old: T | undefined, make: (k: number) => T): T => {
      const next = make(cap);
      if (old) next.set(old);
      return next;
    };
    this.x0 = grow(this.x0, (k) => new Float64Array(k));
    this.y0 = grow(this.y0, (k) => new Float64Array(k));
    this.side = grow(this.side, (k) => new Float64Array(k));
    this.mx = grow(this.mx, (k) => new Float64Array(k));
    this.my = grow(this.my, (k) => new Float64Array(k));
    this.count = grow(this.count, (k) => new Int32Array(k));
    this.child = grow(this.child, (k) => new Int32Array(k));
    this.point = grow(this.point, (k) => new Int32Array(k));
  }

  private node(x0: number, y0: number, side: number): number {
    if (this.used + 1 > this.cap) {
      this.cap *= 2;
      this.alloc(this.cap);
    }
    const k = this.used++;
    this.x0[k] = x0;
    this.y0[k] = y0;
    this.side[k] = side;
    this.mx[k] = 0;
    this.my[k] = 0;
    this.count[k] = 0;
    this.child[k] = -1;
    this.point[k] = -1;
    return k;
  }

  private build(y: Float64Array, n: number): void {
    let lx = Infinity;
    let ly = Infinity;
    let hx = -Infinity;
    let hy = -Infinity;
    for (let i = 0; i < n; i++) {
      lx = Math.min(lx, y[2 * i] as number);
      hx = Math.max(hx, y[2 * i] as number);
      ly = Math.min(ly, y[2 * i + 1] as number);
      hy = Math.max(hy, y[2 * i + 1] as number);
    }
    const side = Math.max(hx - lx, hy - ly, 1e-12) * (1 + 1e-9);
    this.used = 0;
    this.node(lx, ly, side);
    for (let i = 0; i < n; i++) this.insert(y, i);
  }

  private quadrant(k: number, px: number, py: number): number {
    const half = (this.side[k] as number) / 2;
    return (this.child[k] as number) + (px >= (this.x0[k] as number) + half ? 1 : 0) + (py >= (this.y0[k] as number) + half ? 2 : 0);
  }

  private insert(y: Float64Array, i: number): void {
    const px = y[2 * i] as number;
    const py = y[2 * i + 1] as number;
    let k = 0;
    for (let depth = 0; ; depth++) {
      this.mx[k] = (this.mx[k] as number) + px;
      this.my[k] = (this.my[k] as number) + py;
      this.count[k] = (this.count[k] as number) + 1;
      if (this.child[k] === -1) {
        if (this.count[k] === 1) {
          this.point[k] = i;
          return;
        }
        // Coincident points past MAX_DEPTH share a leaf.
        if (depth >= MAX_DEPTH) return;
        // Split: the leaf's earlier point moves down into its quadrant.
        const half = (this.side[k] as number) / 2;
        const x0 = this.x0[k] as number;
        const y0 = this.y0[k] as number;
        const first = this.node(x0, y0, half);
        this.node(x0 + half, y0, half);
        this.node(x0, y0 + half, half);
        this.node(x0 + half, y0 + half, half);
        this.child[k] = first;
        const p = this.point[k] as number;
        this.point[k] = -1;
        const c = this.quadrant(k, y[2 * p] as number, y[2 * p + 1] as number);
        this.mx[c] = y[2 * p] as number;
        this.my[c] = y[2 * p + 1] as number;
        this.count[c] = 1;
        this.point[c] = p;
      }
      k = this.quadrant(k, px, py);
    }
  }

  /** Barnes–Hut repulsion into `rep` (overwritten); returns Z. */
  repulsion(y: Float64Array, n: number, rep: Float64Array): number {
    this.build(y, n);
    let z = 0;
    let stack = this.stack;
    for (let i = 0; i < n; i++) {
      const px = y[2 * i] as number;
      const py = y[2 * i + 1] as number;
      let r0 = 0;
      let r1 = 0;
      let top = 0;
      stack[top++] = 0;
      while (top > 0) {
        const k = stack[--top] as number;
        let cnt = this.count[k] as number;
        if (cnt === 0) continue;
        const leaf = this.child[k] === -1;
        if (leaf && this.point[k] === i) cnt -= 1;
        if (cnt === 0) continue;
        const total = this.count[k] as number;
        const d0 = px - (this.mx[k] as number) / total;
        const d1 = py - (this.my[k] as number) / total;
        const d2 = d0 * d0 + d1 * d1;
        const s = this.side[k] as number;
        if (leaf || s * s < THETA2 * d2) {
          const q = 1 / (1 + d2);
          z += cnt * q;
          const w = cnt * q * q;
          r0 += w * d0;
          r1 += w * d1;
        } else {
          const c = this.child[k] as number;
          if (top + 4 > stack.length) {
            const bigger = new Int32Array(stack.length * 2);
            bigger.set(stack);
            this.stack = stack = bigger;
          }
          stack[top++] = c;
          stack[top++] = c + 1;
          stack[top++] = c + 2;
          stack[top++] = c + 3;
        }
      }
      rep[2 * i] = r0;
      rep[2 * i + 1] = r1;
    }
    return z;
  }
}

/** Centre on the mean and scale to unit RMS radius: maps of different runs and seeds share a scale. */
function normalise(y: Float64Array, n: number): void {
  let m0 = 0;
  let m1 = 0;
  for (let i = 0; i < n; i++) {
    m0 += y[2 * i] as number;
    m1 += y[2 * i + 1] as number;
  }
  m0 /= n;
  m1 /= n;
  let ss = 0;
  for (let i = 0; i < n; i++) {
    y[2 * i] = (y[2 * i] as number) - m0;
    y[2 * i + 1] = (y[2 * i + 1] as number) - m1;
    ss += (y[2 * i] as number) ** 2 + (y[2 * i + 1] as number) ** 2;
  }
  const s = ss > 0 ? 1 / Math.sqrt(ss / n) : 1;
  for (let i = 0; i < n * 2; i++) y[i] = (y[i] as number) * s;
}
