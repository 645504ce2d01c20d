/**
 * A short rendering of a value read from a log, for an error message. Never throws: JSON.stringify
 * overflows the stack on a value nested a few thousand levels deep, which JSON.parse happily builds.
 */
export function previewValue(value: unknown, max = 80): string {
  const v = typeof value === 'string' && value.length > max ? value.slice(0, max) : value;
  try {
    return (JSON.stringify(v) ?? String(v)).slice(0, max);
  } catch {
    return Array.isArray(v) ? '[…] (nested too deep to show)' : '{…} (nested too deep to show)';
  }
}
