/** RouteLens's own version, as package.json states it (read once; the bundled CLI finds it from the source's place). */
import { readFileSync } from 'node:fs';

let version: string | undefined;

export function routelensVersion(): string {
  version ??= (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  return version;
}
