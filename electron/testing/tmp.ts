/** Test helpers: fresh temporary folders, removed after each test (`useTempDir`) or after the file (`useSuiteTempDir`). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach } from 'vitest';

function tracker(register: (cleanup: () => void) => void): () => string {
  const made: string[] = [];
  register(() => {
    for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(join(tmpdir(), 'routelens-test-'));
    made.push(dir);
    return dir;
  };
}

export const useTempDir = (): (() => string) => tracker(afterEach);
export const useSuiteTempDir = (): (() => string) => tracker(afterAll);
