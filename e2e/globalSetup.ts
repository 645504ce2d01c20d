/**
 * Before the browser tests: make sure the renderer and CLI builds are current, build a fresh database in a temporary
 * folder through the real CLI (`routelens import`), record what `routelens info --json` says it holds (the
 * specs compare the UI against it), and start `routelens serve` on a free port. The returned function
 * stops the server and removes the folder.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SCORED_RUN } from './pages/EstimatorPage.ts';
import { cli, freePort, startServe } from './serveProcess.ts';
import { buildCliIfStale } from '../test/buildCli.ts';
import { clickhouseSkipReason, startTestCluster } from '../test/clickhouseCluster.ts';
import { STATE_ENV, type E2eState } from './state.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Fixture inputs, in import order; sample folders that are not there yet are skipped. */
const INPUTS = [
  'fixtures/canonical/example.jsonl',
  'fixtures/samples/mini-swe-agent',
  'e2e/fixtures/hostile.jsonl',
  'fixtures/mtrouter/scienceworld',
  // Everyday agents (issue 15): a Claude Code session with its subagent and compaction runs; a Codex rollout
  // whose model (a custom alias) has no known price.
  'fixtures/samples/claude-code/spotter',
  'fixtures/samples/codex/vct-codex.jsonl',
];

/**
 * Simulated runs imported after the fixtures, so every analysis has data (lift, budget modes, plan DAGs,
 * usage ratios…): small, seeded, written by the real CLI (`routelens simulate`).
 */
const SIMULATED = ['scienceworld', 'uno', 'critique', 'corl'] as const;
const SIMULATED_EPISODES = 60;

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function ensureRendererBuilt(): void {
  const out = process.env.ROUTELENS_RENDERER_OUT || join(root, 'dist', 'renderer');
  const index = join(out, 'index.html');
  const sources = Math.max(newestMtime(join(root, 'renderer')), ...['vite.config.ts', 'vite.case.config.ts'].map((f) => statSync(join(root, f)).mtimeMs));
  // The shared case's viewer is built with the renderer (case/); a build from before it has none.
  if (existsSync(index) && existsSync(join(out, 'case', 'case.js')) && statSync(index).mtimeMs >= sources) return;
  const built = spawnSync(process.execPath, [join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--logLevel', 'warn'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (built.status !== 0) throw new Error('vite build failed');
}

/**
 * The estimator's analyses (calibration, embeddings) and what-if neighbours need scored turns: one run,
 * `SCORED_RUN` (e2e/pages/EstimatorPage.ts), is scored before the tests, with the shipped default model when it is installed, else with
 * a tiny estimator trained here. The runs the policy lab tests as unscored (sw-router-demo, mini-swe-agent)
 * stay unscored.
 */
function scoreOneRun(dir: string, dbPath: string): string {
  let model = join(root, 'models', 'default-estimator.onnx');
  if (!existsSync(model)) {
    model = join(dir, 'e2e-estimator.onnx');
    cli(['train', '--db', dbPath, '--out', model, '--epochs', '2', '--seed', '1', '--run', 'sw-mtrouter']);
  }
  cli(['score', '--db', dbPath, '--model', model, '--run', SCORED_RUN, '--ep', 'cpu']);
  return model;
}

/**
 * The `store` project's server: the same inputs imported into a 2-shard ClickHouse cluster on loopback through the
 * CLI (`store init`, `import --store`, `score --store` of the same run with the same model), served by `serve --store`. Without clickhouse-server the project's tests skip
 * with the reason (CI sets ROUTELENS_REQUIRE_CLICKHOUSE=1, which makes a missing server an error instead).
 */
async function serveFromStore(inputs: string[], model: string): Promise<{ state: E2eState['store']; stop(): Promise<void> }> {
  const skip = clickhouseSkipReason();
  if (skip) return { state: { skip }, stop: async () => {} };
  const cluster = await startTestCluster(2);
  try {
    const url = cluster.url('routelens_e2e');
    cli(['store', 'init', '--store', url]);
    cli(['import', ...inputs, '--store', url], 300_000);
    cli(['score', '--store', url, '--model', model, '--run', SCORED_RUN, '--ep', 'cpu']);
    const server = await startServe(url, await freePort());
    return {
      state: { url: server.url },
      stop: async () => {
        await server.stop();
        await cluster.stop();
      },
    };
  } catch (e) {
    await cluster.stop();
    throw e;
  }
}

export default async function globalSetup(): Promise<() => Promise<void>> {
  ensureRendererBuilt();
  buildCliIfStale();
  const dir = mkdtempSync(join(tmpdir(), 'routelens-e2e-'));
  const dbPath = join(dir, 'e2e.db');
  const simulated = SIMULATED.map((preset) => {
    const out = join(dir, `sim-${preset}.jsonl`);
    cli(['simulate', '--preset', preset, '--episodes', String(SIMULATED_EPISODES), '--seed', '7', '--out', out]);
    return out;
  });
  const inputs = [...INPUTS.filter((p) => existsSync(join(root, p))), ...simulated];
  cli(['import', ...inputs, '--db', dbPath]);
  const model = scoreOneRun(dir, dbPath);
  const info = JSON.parse(cli(['info', '--db', dbPath, '--json'])) as E2eState['info'];
  const server = await startServe(dbPath, await freePort());
  const onStore = await serveFromStore(inputs, model);
  const state: E2eState = { url: server.url, dbPath, inputs, info, store: onStore.state };
  const statePath = join(dir, 'state.json');
  writeFileSync(statePath, JSON.stringify(state, null, 2));
  process.env[STATE_ENV] = statePath;
  return async () => {
    await server.stop();
    await onStore.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}
