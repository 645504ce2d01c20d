/**
 * Vitest global setup: the shared case's viewer (vite.case.config.ts) is built when the renderer's build has not
 * made it yet (a fresh clone: `npm test` builds the renderer after the unit tests), so the API's shareCase answers
 * in the unit tests as in the window. A viewer already built is used as it is (seconds saved; the browser tests
 * rebuild it with the renderer).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'vite';
import { rendererDir } from '../electron/server/rendererDir.ts';
import { caseViewerConfig } from '../vite.case.config.ts';

export default async function buildCaseViewerIfMissing(): Promise<void> {
  const dir = join(rendererDir, 'case');
  if (existsSync(join(dir, 'case.js')) && existsSync(join(dir, 'case.css'))) return;
  await build(caseViewerConfig(dir));
}
