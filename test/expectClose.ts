/** Test helper: two answers that should be the same numbers, computed in different orders (two stores). */

/**
 * Equal as JSON values, numbers within `rel` relative (1e-9; 1e-6 where one side keeps a number as float32);
 * lists of objects compared in a canonical order.
 */
export function expectClose(actual: unknown, expected: unknown, path = '$', rel = 1e-9): void {
  if (typeof expected === 'number' && typeof actual === 'number') {
    const scale = Math.max(1, Math.abs(expected));
    if (!(Math.abs(actual - expected) <= rel * scale)) throw new Error(`${path}: ${actual} ≠ ${expected}`);
    return;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) throw new Error(`${path}: length ${(actual as unknown[])?.length} ≠ ${expected.length}`);
    const key = (x: unknown): string => JSON.stringify(x, (_k, v) => (typeof v === 'number' ? Number(v.toPrecision(8)) : v));
    const a = [...actual].sort((x, y) => key(x).localeCompare(key(y)));
    const e = [...expected].sort((x, y) => key(x).localeCompare(key(y)));
    e.forEach((x, i) => expectClose(a[i], x, `${path}[${i}]`, rel));
    return;
  }
  if (expected && typeof expected === 'object') {
    if (!actual || typeof actual !== 'object') throw new Error(`${path}: ${JSON.stringify(actual)} is not an object`);
    const ka = Object.keys(actual).sort();
    const ke = Object.keys(expected).sort();
    if (ka.join() !== ke.join()) throw new Error(`${path}: keys ${ka.join()} ≠ ${ke.join()}`);
    for (const k of ke) expectClose((actual as Record<string, unknown>)[k], (expected as Record<string, unknown>)[k], `${path}.${k}`, rel);
    return;
  }
  if (actual !== expected) throw new Error(`${path}: ${JSON.stringify(actual)} ≠ ${JSON.stringify(expected)}`);
}
