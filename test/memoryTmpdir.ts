/**
 * Temporary files of the test suites in memory: where the machine has a RAM-backed /dev/shm with room and nobody
 * chose a TMPDIR, the suites' temporary folders (databases, logs written by tests, ClickHouse clusters' data) go
 * there instead of the disk. On CI's machine /tmp is on a virtual disk: electron/db with two CLI test files took
 * 59.7 s there and 54.5 s here (two interleaved runs each); on whole runs the machine's own drift hid the gain.
 * Called from the suites' configs, before any worker, server or CLI child starts: they inherit it.
 * Nothing tested depends on the file system kind (renames stay inside one folder, mtimes keep nanoseconds).
 */
import { accessSync, constants, statfsSync, statSync } from 'node:fs';

/** Room the suites may fill at once (a 10 MB line, zip bombs, two ClickHouse clusters), with a wide margin. */
const NEEDED_BYTES = 2 * 1024 ** 3;

export function useMemoryTmpdir(dir = '/dev/shm'): string | null {
  if (process.env.TMPDIR) return null;
  try {
    if (!statSync(dir).isDirectory()) return null;
    accessSync(dir, constants.W_OK);
    const fs = statfsSync(dir);
    if (fs.bavail * fs.bsize < NEEDED_BYTES) return null;
  } catch {
    return null;
  }
  process.env.TMPDIR = dir;
  return dir;
}
