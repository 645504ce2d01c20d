/** Test helpers shared by the importer tests: run an importer over a file, or expect it to reject the file. */
import { expect } from 'vitest';
import type { CanonicalEpisode } from '../../shared/canonical.ts';
import { ImportError, type Importer } from './types.ts';

export async function readEpisodes(
  importer: Importer,
  file: string,
  runName?: string,
): Promise<{ episodes: CanonicalEpisode[]; warnings: string[] }> {
  const warnings: string[] = [];
  const episodes: CanonicalEpisode[] = [];
  for await (const ep of importer.read(file, { root: file, runName, warn: (m) => warnings.push(m) })) episodes.push(ep);
  return { episodes, warnings };
}

export async function readOneEpisode(importer: Importer, file: string, runName?: string): Promise<CanonicalEpisode> {
  const { episodes } = await readEpisodes(importer, file, runName);
  expect(episodes).toHaveLength(1);
  return episodes[0] as CanonicalEpisode;
}

export async function rejectionOf(importer: Importer, file: string): Promise<ImportError> {
  try {
    await readEpisodes(importer, file);
  } catch (err) {
    if (err instanceof ImportError) return err;
    throw err;
  }
  throw new Error(`${file} was not rejected`);
}
