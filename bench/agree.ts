/**
 * Whether two analysis results are the same answer: equal structure and strings, numbers equal within a
 * relative tolerance (our columnar cache keeps costs and scores as Float32, DuckDB as DOUBLE, so sums differ
 * in the 7th digit), arrays compared as sets where their order carries no meaning (rows sorted by their
 * identifying fields first). Returns the first difference as a path, or null when they agree.
 */
const ID_FIELDS = ['run', 'mode', 'model', 'category', 'episode', 'difficulty', 'train_step', 'max_turns', 't'];

function sortKey(v: unknown): string {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return JSON.stringify(v);
  const o = v as Record<string, unknown>;
  return ID_FIELDS.filter((k) => k in o).map((k) => (typeof o[k] === 'number' ? String(o[k]).padStart(24, '0') : String(o[k]))).join('\u0000');
}

function ordered(a: unknown[]): unknown[] {
  if (!a.every((x) => x !== null && typeof x === 'object' && !Array.isArray(x) && ID_FIELDS.some((k) => k in (x as object)))) return a;
  return [...a].sort((x, y) => (sortKey(x) < sortKey(y) ? -1 : sortKey(x) > sortKey(y) ? 1 : 0));
}

export function firstDifference(ours: unknown, theirs: unknown, tolerance = 1e-5, path = '$'): string | null {
  if (typeof ours === 'number' && typeof theirs === 'number') {
    if (Number.isNaN(ours) && Number.isNaN(theirs)) return null;
    const scale = Math.max(1e-9, Math.abs(ours), Math.abs(theirs));
    return Math.abs(ours - theirs) <= tolerance * scale ? null : `${path}: ${ours} vs ${theirs}`;
  }
  if (ours === null || theirs === null || typeof ours !== 'object' || typeof theirs !== 'object') {
    return ours === theirs ? null : `${path}: ${JSON.stringify(ours)} vs ${JSON.stringify(theirs)}`;
  }
  if (Array.isArray(ours) !== Array.isArray(theirs)) return `${path}: array vs object`;
  if (Array.isArray(ours) && Array.isArray(theirs)) {
    if (ours.length !== theirs.length) return `${path}: ${ours.length} items vs ${theirs.length}`;
    const [a, b] = [ordered(ours), ordered(theirs)];
    for (let i = 0; i < a.length; i++) {
      const d = firstDifference(a[i], b[i], tolerance, `${path}[${i}]`);
      if (d) return d;
    }
    return null;
  }
  const [a, b] = [ours as Record<string, unknown>, theirs as Record<string, unknown>];
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of [...keys].sort()) {
    if (!(k in a) || !(k in b)) return `${path}.${k}: only in ${k in a ? 'ours' : 'theirs'}`;
    const d = firstDifference(a[k], b[k], tolerance, `${path}.${k}`);
    if (d) return d;
  }
  return null;
}

/** How many numbers and strings an answer holds: shows that an agreement was not two empty answers. */
export function valueCount(v: unknown): number {
  if (v === null || typeof v !== 'object') return 1;
  return (Array.isArray(v) ? v : Object.values(v)).reduce((a: number, x) => a + valueCount(x), 0);
}
