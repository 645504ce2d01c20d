/** The machine a bench ran on, as BENCHMARKS.md states it. */
import { execSync } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';

export interface Machine {
  date: string;
  cpuModel: string;
  /** `nproc`: the cores this process may use. */
  nproc: number;
  memoryGiB: number;
  node: string;
  os: string;
  /** 1-minute load average when the bench started and ended (other work on a shared machine shows here). */
  loadAverage: { start: number; end?: number };
  commit: string;
}

export function machine(): Machine {
  const sh = (cmd: string): string => {
    try {
      return execSync(cmd, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      return '';
    }
  };
  const lscpu = sh('lscpu');
  const model = /^Model name:\s*(.+)$/m.exec(lscpu)?.[1]?.trim() ?? cpus()[0]?.model ?? 'unknown';
  return {
    date: new Date().toISOString(),
    cpuModel: model,
    nproc: Number(sh('nproc')) || cpus().length,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    os: `${sh('uname -sr')}`,
    loadAverage: { start: Math.round((loadavg()[0] ?? 0) * 100) / 100 },
    commit: sh('git rev-parse --short HEAD'),
  };
}
