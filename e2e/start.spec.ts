/**
 * `npm start` stopped as a process manager stops it (issue 35 item 9): SIGTERM to npm. npm passes it to the shell that
 * runs scripts/start.mjs, which dies without passing it on; the server must still stop and free its port, not live on
 * orphaned. Runs the real `npm start` in its browser mode on the e2e database (no browser is opened: --no-open).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, test } from './fixtures.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

test('SIGTERM to `npm start` stops its server too: the port is freed', async ({ state }) => {
  test.setTimeout(60_000);
  // Its own process group, so that whatever a failure leaves running is stopped at the end.
  const npm = spawn('npm', ['start', '--', '--db', state.dbPath, '--browser', '--no-open'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  try {
    let out = '';
    npm.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    npm.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
    await expect.poll(() => /http:\/\/127\.0\.0\.1:\d+\/\?token=/.test(out), { timeout: 40_000 }).toBe(true);
    const url = new URL((/http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]+/.exec(out) as RegExpExecArray)[0]);
    const answers = () => fetch(new URL('/api/dbInfo', url), { method: 'POST', headers: { 'x-routelens-token': url.searchParams.get('token') ?? '' }, body: '{}' }).then((r) => r.ok, () => false);
    expect(await answers()).toBe(true);

    npm.kill('SIGTERM');
    await expect.poll(answers, { timeout: 10_000, message: `the server at ${url.origin} still answers after npm was stopped` }).toBe(false);
  } finally {
    try {
      process.kill(-(npm.pid as number), 'SIGKILL');
    } catch {
      // The group is gone: nothing was left running.
    }
  }
});
