/** `--rho`, read alike by `analyze usage-ratio` and `export usage-ratio`. */
import { nameKeyed } from '../../shared/nameKeyed.ts';
import { UsageError } from './common.ts';

/** `--rho gpt-5=0.25,kimi-k2=0.5` → { 'gpt-5': 0.25, 'kimi-k2': 0.5 } */
export function parseRho(text: string | undefined): Record<string, number> | undefined {
  if (text === undefined) return undefined;
  // Model names come from the user and the logs: `__proto__` must stay a key, not set a prototype.
  const out = nameKeyed<number>();
  for (const part of text.split(',')) {
    const [model, value] = part.split('=');
    const rho = Number(value);
    if (!model || !(rho >= 0 && rho <= 1)) throw new UsageError(`--rho takes MODEL=RATIO pairs with ratios in [0, 1], got "${part}"`);
    out[model.trim()] = rho;
  }
  return out;
}
