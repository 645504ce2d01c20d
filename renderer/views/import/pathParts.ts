/**
 * Where a long path may wrap: after each folder separator, and after _ - . inside a very long name, so a
 * path in a narrow column breaks as `logs/run-12/` + `trajectory.json`, never as `traj` + `ectory.json`.
 */

/** Segments of a path, each ending where a line may break. Joined they give the path back, unchanged. */
export function pathParts(path: string, longName = 24): string[] {
  const parts: string[] = [];
  for (const piece of path.split(/(?<=[/\\])/)) {
    if (piece.length <= longName) {
      parts.push(piece);
      continue;
    }
    parts.push(...piece.split(/(?<=[_.-])/));
  }
  return parts.filter((p) => p !== '');
}
