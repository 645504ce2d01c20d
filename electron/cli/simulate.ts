/** `routelens simulate`: trajectories with planted, known effects, for tests, benchmarks and the demo. */
import { PRESET_NAMES, PRESETS, simulateToFile, type PresetName } from '../../fixtures/simulator/index.ts';
import { err, UsageError, type Command } from './common.ts';
import { bar, Progress } from './progress.ts';

export const command: Command = {
  usage: `routelens simulate --preset ${PRESET_NAMES.join('|')} --episodes N --seed S --out FILE.jsonl`,
  options: { preset: { type: 'string' }, episodes: { type: 'string' }, seed: { type: 'string' }, out: { type: 'string' } },
  async run(values) {
    const preset = values.preset as string | undefined;
    if (!preset || !(PRESET_NAMES as readonly string[]).includes(preset)) {
      throw new UsageError(`--preset must be one of:\n${PRESETS.map((p) => `  ${p.name.padEnd(13)}${p.description}`).join('\n')}`);
    }
    const episodes = Number(values.episodes ?? '1000');
    const seed = Number(values.seed ?? '1');
    if (!Number.isInteger(episodes) || episodes < 1) throw new UsageError('--episodes must be a whole number ≥ 1');
    if (!Number.isInteger(seed)) throw new UsageError('--seed must be a whole number');
    if (typeof values.out !== 'string') throw new UsageError('--out FILE.jsonl is required');
    const progress = new Progress();
    const started = Date.now();
    let result;
    try {
      result = await simulateToFile({
        preset: preset as PresetName, episodes, seed, out: values.out,
        onProgress: (done, total) => progress.update(`simulating ${bar(done / total)} ${done}/${total} episodes`),
      });
    } catch (e) {
      if (e instanceof RangeError) throw new UsageError(e.message);
      throw e;
    }
    progress.done();
    err(`wrote ${values.out}: ${result.episodes} episodes, ${result.turns} turns in ${((Date.now() - started) / 1000).toFixed(1)} s; truth in ${result.truthPath}`);
    return 0;
  },
};
