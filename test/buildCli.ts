/**
 * Vitest global setup: the CLI bundle (scripts/build-cli.mjs) is brought up to date before any test spawns
 * bin/routelens.mjs, so tests run the CLI as users of a checkout do, and a source edited since the last build
 * does not send every spawned CLI to the slower source path with its one-line notice on stderr (tests count
 * stderr's lines). When the bundle is fresh this is one quick check.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Also e2e/globalSetup's first step: the browser tests start the CLI dozens of times too. */
export function buildCliIfStale(): void {
  const script = fileURLToPath(new URL('../scripts/build-cli.mjs', import.meta.url));
  const r = spawnSync(process.execPath, [script, '--quiet'], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error('npm run build:cli failed (see above)');
}

export default buildCliIfStale;
