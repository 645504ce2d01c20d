/** The JSON Schema of `routelens/v1`, generated from the zod schema so the two cannot drift. */
import { z } from 'zod';
import { CanonicalEpisode } from './canonical.ts';

export function canonicalJsonSchema(): Record<string, unknown> {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://routelens.dev/schema/routelens-v1.schema.json',
    title: 'RouteLens canonical trajectory (routelens/v1): one episode per JSON Lines line',
    ...z.toJSONSchema(CanonicalEpisode, { io: 'input', unrepresentable: 'any' }),
  };
}
