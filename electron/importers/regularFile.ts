/**
 * Sidecar files (labels, run arguments, reports) are read whole: one that is a FIFO or a device would block the
 * import forever, so only regular files (symlinks followed) are read.
 */
import { statSync } from 'node:fs';

export function isRegularFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
