/** `routelens demo --db FILE`: the demo database, built from the bundled samples (electron/demo.ts). */
import { buildDemo } from '../demo.ts';
import { err, requireDb, type Command } from './common.ts';
import { Progress } from './progress.ts';

export const command: Command = {
  usage: 'routelens demo --db FILE [--force]',
  options: { db: { type: 'string' }, force: { type: 'boolean' } },
  async run(values) {
    const path = requireDb(values, false);
    const progress = new Progress();
    const summary = await buildDemo(path, { force: values.force === true, onProgress: (m) => progress.update(m) });
    progress.done();
    err(summary);
    return 0;
  },
};
