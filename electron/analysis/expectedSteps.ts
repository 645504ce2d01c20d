/** N per task for the AEC targets (DESIGN §5), from fixtures/expected-steps.json. */
import { readFileSync } from 'node:fs';
import { z } from 'zod';

const Config = z.object({
  default: z.number().int().positive(),
  by_task_type: z.record(z.string(), z.number().int().positive()).default({}),
  by_category: z.record(z.string(), z.number().int().positive()).default({}),
});
export type ExpectedStepsConfig = z.infer<typeof Config>;

let cached: ExpectedStepsConfig | undefined;
export function expectedStepsConfig(): ExpectedStepsConfig {
  cached ??= Config.parse(JSON.parse(readFileSync(new URL('../../fixtures/expected-steps.json', import.meta.url), 'utf8')));
  return cached;
}

export function expectedSteps(
  task: { expected_steps?: number | null; category?: string | null; type?: string | null },
  config: ExpectedStepsConfig = expectedStepsConfig(),
): number {
  if (task.expected_steps) return task.expected_steps;
  if (task.category && config.by_category[task.category]) return config.by_category[task.category] as number;
  const type = task.type?.toLowerCase();
  if (type && config.by_task_type[type]) return config.by_task_type[type] as number;
  return config.default;
}
