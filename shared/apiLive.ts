/**
 * The live part of the API contract (issue 36): the sessions being written now, the folders the window follows,
 * and the events a window hears when the database changes under it (server push in `serve`, IPC in Electron).
 */
import { z } from 'zod';

const id = z.number().int().nonnegative();

/** How far back "running" reaches by default: a session whose log was written within this many minutes. */
export const LIVE_WITHIN_MINUTES = 5;
/** The window the cost rate is taken over. */
export const RATE_WINDOW_MINUTES = 10;

export const LiveSession = z.object({
  episode_id: id,
  run_id: id,
  run: z.string(),
  ext_id: z.string(),
  /** ISO 8601 UTC: the later of the log's latest timestamp for the episode and its followed file's last change. */
  last_at: z.string(),
  calls: z.number().int(),
  /** Sum of the calls' known costs; with `unpriced_calls` > 0 a lower bound, never the total. */
  known_cost: z.number(),
  unpriced_calls: z.number().int(),
  /**
   * USD per hour over the last RATE_WINDOW_MINUTES (or since the session's first timestamped call, if later), from
   * the calls' own timestamps; null when its calls carry none. A lower bound when `rate_unpriced_calls` > 0.
   */
  rate_usd_per_h: z.number().nullable(),
  rate_unpriced_calls: z.number().int(),
  /** Calls per model, most used first. */
  model_mix: z.array(z.object({ model: z.string(), calls: z.number().int() })),
  /** The model of the latest call, and how many calls in a row (ending with the latest) went to it. */
  current_model: z.string().nullable(),
  calls_since_switch: z.number().int(),
});
export type LiveSession = z.infer<typeof LiveSession>;

export const FollowedFolder = z.object({ path: z.string(), added_at: z.string() });
export type FollowedFolder = z.infer<typeof FollowedFolder>;

/** One row of the `alerts` table, as an alert rule fired it (keyed by run and episode names). */
export const AlertRow = z.object({
  id,
  run: z.string(),
  episode: z.string(),
  rule: z.string(),
  fired_at: z.string(),
  message: z.string(),
});
export type AlertRow = z.infer<typeof AlertRow>;

/** What a window hears: the database moved (refresh what is shown), or an alert fired. */
export const LiveEvent = z.discriminatedUnion('type', [
  z.object({ type: z.literal('data'), version: z.number().int() }),
  z.object({ type: z.literal('alert'), alert: AlertRow }),
]);
export type LiveEvent = z.infer<typeof LiveEvent>;

const folderPath = z.string().min(1).max(4096);

export const liveContract = {
  /** Episodes last active within `withinMinutes`, most recent first. A ClickHouse store answers []. */
  liveSessions: {
    input: z.object({ withinMinutes: z.number().positive().max(7 * 24 * 60).default(LIVE_WITHIN_MINUTES) }),
    output: z.array(LiveSession),
  },
  /** The folders "Follow folders…" remembers, oldest first. */
  followedFolders: { input: z.object({}), output: z.array(FollowedFolder) },
  /** Adds folders (absolute paths of existing folders); answers the list after. */
  followFolders: { input: z.object({ paths: z.array(folderPath).min(1).max(100) }), output: z.array(FollowedFolder) },
  unfollowFolder: { input: z.object({ path: folderPath }), output: z.array(FollowedFolder) },
} as const;
