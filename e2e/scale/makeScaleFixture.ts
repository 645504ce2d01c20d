/**
 * Writes a canonical JSONL file at the scale DESIGN §11 names (default 30,000 episodes, ~17 turns each ≈
 * 510k turns) for the opt-in scale spec (e2e/scale.spec.ts). Deterministic (seeded), a few runs, six models,
 * errors and switches, short but searchable text.
 *   node --import tsx e2e/scale/makeScaleFixture.ts OUT.jsonl [EPISODES]
 */
import { createWriteStream } from 'node:fs';

const MODELS = ['gpt-5', 'deepseek-v3.2', 'kimi-k2', 'gpt-oss-120b', 'gemini-2.5-flash-lite', 'minimax-m2'];
const WORDS = ['kitchen', 'stove', 'thermometer', 'water', 'beaker', 'freezer', 'lighter', 'substance', 'orange', 'table'];

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export async function writeScaleFixture(out: string, episodes: number, seed = 7): Promise<number> {
  const rand = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const stream = createWriteStream(out);
  let turnsWritten = 0;
  for (let e = 0; e < episodes; e++) {
    const n = 5 + Math.floor(rand() * 25);
    let model = pick(MODELS);
    const turns = [];
    for (let t = 0; t < n; t++) {
      if (rand() < 0.2) model = pick(MODELS);
      const err = rand() < 0.08 ? [{ type: 'scale_error', severity: pick(['low', 'medium', 'high'] as const) }] : [];
      turns.push({
        t,
        model,
        action: { type: 'tool', tool: 'env', text: `${pick(WORDS)} ${pick(WORDS)} step ${t}` },
        observation: `You see a ${pick(WORDS)} and a ${pick(WORDS)}. Episode ${e} turn ${t}.`,
        tokens: { in: 800 + Math.floor(rand() * 2000), out: 20 + Math.floor(rand() * 200), cached: 0 },
        cost_usd: Number((rand() * 0.004).toFixed(6)),
        latency_ms: Math.floor(200 + rand() * 3000),
        propensity: Number(rand().toFixed(3)),
        errors: err,
      });
    }
    const score = Math.round(-100 + rand() * 200);
    const line = {
      schema: 'routelens/v1',
      run: `scale-run-${e % 4}`,
      episode_id: `scale_${e}`,
      task: { id: `task_${e % 500}`, type: 'scienceworld', category: pick(['boil', 'melt', 'freeze', 'grow']), split: 'train' },
      outcome: { score, score_range: [-100, 100], success: score > 40, exit: 'Submitted' },
      turns,
    };
    turnsWritten += n;
    if (!stream.write(`${JSON.stringify(line)}\n`)) await new Promise<void>((r) => stream.once('drain', () => r()));
  }
  await new Promise<void>((resolve, reject) => stream.end((err?: Error | null) => (err ? reject(err) : resolve())));
  return turnsWritten;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [out, count] = process.argv.slice(2);
  if (!out) throw new Error('usage: makeScaleFixture.ts OUT.jsonl [EPISODES]');
  const turns = await writeScaleFixture(out, Number(count ?? 30_000));
  process.stdout.write(`${out}: ${count ?? 30_000} episodes, ${turns} turns\n`);
}
