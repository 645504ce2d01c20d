/** `routelens serve` as a child process for tests that need the real server: its URL (with token) once it serves. */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { request } from 'node:http';

export function spawnServe(bin: string, cwd: string, dbPath: string, env?: NodeJS.ProcessEnv): { child: ChildProcessWithoutNullStreams; url: Promise<URL> } {
  const child = spawn(process.execPath, [bin, 'serve', '--db', dbPath, '--port', '0'], { cwd, env: env ?? process.env });
  const url = new Promise<URL>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /http:\/\/127\.0\.0\.1:\d+\/\?token=\w+/.exec(out);
      if (m) resolve(new URL(m[0]));
    });
    child.on('exit', () => reject(new Error(`serve exited before it served: ${out}`)));
  });
  return { child, url };
}

/** One API call to a serve on this machine, as the browser adapter sends it: the status and the body as text. */
export function postApi(port: number, token: string, name: string, body: unknown): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method: 'POST', path: `/api/${name}`, headers: { Host: `127.0.0.1:${port}`, 'X-RouteLens-Token': token, 'Content-Type': 'application/json' } },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}
