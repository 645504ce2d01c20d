// Types for bin/cliBundle.mjs (plain JavaScript: the bin runs before any TypeScript loader).
export type Freshness = { fresh: true; build: string; entry: string } | { fresh: false; why: 'missing' } | { fresh: false; why: 'stale'; path: string };
export function freshness(root: string, outRoot?: string): Freshness;
