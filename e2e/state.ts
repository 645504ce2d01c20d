/** What globalSetup hands the specs: the serve URL (with token) and the database's contents per the CLI. */
import { readFileSync } from 'node:fs';

export const STATE_ENV = 'ROUTELENS_E2E_STATE';

export interface InfoRun {
  name: string;
  format: string;
  episodes: number;
  /** Subagent and compaction episodes, counted in their parents' sessions rather than in `episodes`. */
  child_episodes: number;
  turns: number;
  models: string[];
  total_cost: number;
  success_rate: number | null;
}

export interface E2eState {
  /** http://127.0.0.1:PORT/?token=… as `routelens serve` printed it. */
  url: string;
  dbPath: string;
  inputs: string[];
  info: { runs: InfoRun[] };
  /**
   * The same inputs imported into a 2-shard ClickHouse cluster and served from it (the `store` project runs the
   * window's specs there); null with the reason when clickhouse-server is not installed.
   */
  store: { url: string } | { skip: string };
}

export function e2eState(): E2eState {
  const path = process.env[STATE_ENV];
  if (!path) throw new Error(`${STATE_ENV} is not set: run the specs through playwright.config.ts (its globalSetup)`);
  return JSON.parse(readFileSync(path, 'utf8')) as E2eState;
}
