/** Importers in priority order (DESIGN §4): the first whose `detect` accepts a file reads it. */
import { canonicalImporter } from './canonical.ts';
import { inspectImporter } from './inspect.ts';
import { miniSweAgentImporter } from './miniSweAgent.ts';
import { otelImporter } from './otel.ts';
import { sweAgentImporter } from './sweAgent.ts';
import type { Importer } from './types.ts';
import { unoImporter } from './uno.ts';

export const IMPORTERS: readonly Importer[] = [
  canonicalImporter,
  miniSweAgentImporter,
  sweAgentImporter,
  inspectImporter,
  otelImporter,
  unoImporter,
];

export function importerByFormat(format: string): Importer | undefined {
  return IMPORTERS.find((i) => i.format === format);
}
