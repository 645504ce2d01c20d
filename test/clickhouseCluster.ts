/**
 * A real 2-shard ClickHouse cluster on loopback for tests: two `clickhouse-server` processes with free ports,
 * temporary data folders and one `remote_servers` entry naming both, started, waited for, and stopped afterwards.
 * Debian's package (18.16) is what CI installs (.ci/run). Without the package a developer gets a skip with the
 * reason; with ROUTELENS_REQUIRE_CLICKHOUSE=1 (CI) a missing server is a failure, never a skip.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const CANDIDATES = ['/usr/sbin/clickhouse-server', '/usr/bin/clickhouse-server'];

export function clickhouseServerBinary(): string | null {
  return CANDIDATES.find((p) => existsSync(p)) ?? null;
}

/** Why the ClickHouse tests cannot run here, or null when they can; throws in CI where they must. */
export function clickhouseSkipReason(): string | null {
  if (clickhouseServerBinary()) return null;
  const why = 'clickhouse-server is not installed (apt-get install clickhouse-server): ClickHouse store tests skipped';
  if (process.env.ROUTELENS_REQUIRE_CLICKHOUSE === '1') throw new Error(`${why.split(':')[0]}, and ROUTELENS_REQUIRE_CLICKHOUSE=1 forbids skipping them`);
  return why;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

export interface TestCluster {
  /** clickhouse://127.0.0.1:H1,127.0.0.1:H2/DB?cluster=routelens_test */
  url(database: string): string;
  httpPorts: number[];
  stop(): Promise<void>;
}

const CLUSTER = 'routelens_test';

function config(dir: string, ports: { http: number; tcp: number; inter: number }, shards: number[]): string {
  const shardXml = shards.map((p) => `<shard><replica><host>127.0.0.1</host><port>${p}</port></replica></shard>`).join('');
  return `<yandex>
  <logger><level>warning</level><log>${dir}/server.log</log><errorlog>${dir}/error.log</errorlog><size>10M</size><count>1</count></logger>
  <http_port>${ports.http}</http_port><tcp_port>${ports.tcp}</tcp_port><interserver_http_port>${ports.inter}</interserver_http_port>
  <listen_host>127.0.0.1</listen_host>
  <path>${dir}/data/</path><tmp_path>${dir}/tmp/</tmp_path><user_files_path>${dir}/user_files/</user_files_path>
  <format_schema_path>${dir}/format_schemas/</format_schema_path>
  <users_config>${dir}/users.xml</users_config>
  <default_profile>default</default_profile><default_database>default</default_database>
  <mark_cache_size>268435456</mark_cache_size><uncompressed_cache_size>0</uncompressed_cache_size>
  <max_concurrent_queries>50</max_concurrent_queries>
  <timezone>UTC</timezone>
  <remote_servers><${CLUSTER}>${shardXml}</${CLUSTER}></remote_servers>
</yandex>`;
}

// The user `bounded` sees a server as small as a test's data: one aggregation thread (what ClickHouse 18.16 chose by
// itself on a 2-vCPU machine) and 150 MB a query, for tests that a query's memory stays bounded whatever the data's size.
const USERS = `<yandex>
  <profiles><default><max_memory_usage>4000000000</max_memory_usage></default>
    <bounded><max_memory_usage>150000000</max_memory_usage><max_threads>1</max_threads></bounded></profiles>
  <users><default><password></password><networks><ip>127.0.0.1</ip><ip>::1</ip></networks><profile>default</profile><quota>default</quota></default>
    <bounded><password></password><networks><ip>127.0.0.1</ip><ip>::1</ip></networks><profile>bounded</profile><quota>default</quota></bounded></users>
  <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></default></quotas>
</yandex>`;

async function waitReady(port: number, proc: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`clickhouse-server exited (${proc.exitCode}): ${log()}`);
    try {
      const r = await fetch(`http://127.0.0.1:${port}/ping`);
      if (r.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`clickhouse-server on port ${port} did not answer within 60 s: ${log()}`);
}

/** Six distinct free ports for two shards: a port freed a moment ago may be handed out twice. */
async function distinctPorts(n: number): Promise<number[]> {
  const out = new Set<number>();
  while (out.size < n) out.add(await freePort());
  return [...out];
}

/**
 * Starts the cluster; a start that loses a port to another process between our probe and the server's bind
 * (clickhouse-server then exits with 70) is tried again on new ports.
 */
export async function startTestCluster(shards = 2): Promise<TestCluster> {
  try {
    return await startOnce(shards);
  } catch (e) {
    if (!/exited \(70\)/.test((e as Error).message)) throw e;
    return startOnce(shards);
  }
}

async function startOnce(shards: number): Promise<TestCluster> {
  const binary = clickhouseServerBinary();
  if (!binary) throw new Error('clickhouse-server is not installed');
  const root = mkdtempSync(join(tmpdir(), 'routelens-ch-'));
  const free = await distinctPorts(shards * 3);
  const ports = Array.from({ length: shards }, (_, i) => ({ http: free[3 * i] as number, tcp: free[3 * i + 1] as number, inter: free[3 * i + 2] as number }));
  const procs: ChildProcess[] = [];
  let output = '';
  // SIGKILL, not SIGTERM: the cluster's data is thrown away with its folder, and ClickHouse 18.16's orderly shutdown
  // took 8 s of wall time per cluster (a test worker waiting, idle, in each of a dozen files' afterAll).
  const stop = async (): Promise<void> => {
    await Promise.all(procs.map((p) => new Promise<void>((resolve) => {
      if (p.exitCode !== null || p.signalCode !== null) return resolve();
      p.once('exit', () => resolve());
      p.kill('SIGKILL');
    })));
    rmSync(root, { recursive: true, force: true });
  };
  try {
    ports.forEach((p, i) => {
      const dir = join(root, `shard${i + 1}`);
      for (const sub of ['data', 'tmp', 'user_files', 'format_schemas']) mkdirSync(join(dir, sub), { recursive: true });
      writeFileSync(join(dir, 'users.xml'), USERS);
      writeFileSync(join(dir, 'config.xml'), config(dir, p, ports.map((x) => x.tcp)));
      const proc = spawn(binary, [`--config-file=${join(dir, 'config.xml')}`], { stdio: ['ignore', 'pipe', 'pipe'] });
      proc.stdout?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-2000)));
      proc.stderr?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-2000)));
      procs.push(proc);
    });
    for (const [i, p] of ports.entries()) await waitReady(p.http, procs[i] as ChildProcess, () => output);
  } catch (e) {
    await stop();
    throw e;
  }
  return {
    httpPorts: ports.map((p) => p.http),
    url: (database) => `clickhouse://${ports.map((p) => `127.0.0.1:${p.http}`).join(',')}/${database}?cluster=${CLUSTER}`,
    stop,
  };
}
