/**
 * The folder follower of `serve` and the window (issue 36 item 1): one watcher (electron/watch/startWatching.ts)
 * over the folders the database remembers (followed_roots), writing through the API's write queue. Started with the
 * server, started again whenever the folders change, stopped with the server. Starts and stops take turns, so a
 * quick add-then-remove never leaves two watchers on one database.
 */
import { statSync } from 'node:fs';
import type { RouteLensApi } from '../../shared/api.ts';
import type { WatchEvent, WatchOptions, Watching } from '../watch/startWatching.ts';

export interface FolderFollower {
  /** Follows the folders `listRoots` gives now (none: nothing runs). Resolves once the watcher has started. */
  restart(): Promise<void>;
  /** Stops for good: later restarts do nothing. */
  stop(): Promise<void>;
  /** The folders followed now. */
  readonly paths: readonly string[];
}

export interface FolderFollowerOptions extends Omit<WatchOptions, 'paths'> {
  listRoots(): string[];
  start(options: WatchOptions): Promise<Pick<Watching, 'stop' | 'paths'>>;
}

export function createFolderFollower(options: FolderFollowerOptions): FolderFollower {
  const { listRoots, start, ...watch } = options;
  const say = (line: string): void => watch.onEvent?.({ kind: 'notice', line, path: null } satisfies WatchEvent);
  let current: Pick<Watching, 'stop' | 'paths'> | null = null;
  let stopped = false;
  let turn: Promise<void> = Promise.resolve();
  const inTurn = (step: () => Promise<void>): Promise<void> => {
    const next = turn.then(step);
    turn = next.catch(() => undefined);
    return next;
  };
  const halt = async (): Promise<void> => {
    const was = current;
    current = null;
    await was?.stop();
  };
  return {
    restart: () =>
      inTurn(async () => {
        if (stopped) return;
        await halt();
        // A remembered folder may be gone (an unplugged disk): the others are followed, and the list keeps it.
        const roots = listRoots().filter((p) => {
          const there = statSync(p, { throwIfNoEntry: false })?.isDirectory() === true;
          if (!there) say(`not following ${p}: no such folder now`);
          return there;
        });
        if (roots.length === 0) return;
        try {
          current = await start({ ...watch, paths: roots });
        } catch (err) {
          say(`could not follow ${roots.join(', ')}: ${err instanceof Error ? err.message : String(err)}`);
        }
      }),
    stop: () =>
      inTurn(async () => {
        stopped = true;
        await halt();
      }),
    get paths() {
      return current?.paths ?? [];
    },
  };
}

/** `api` whose folder changes restart `follower` over the new list (not awaited: a big folder's first read is long). */
export function refollowingApi(api: RouteLensApi, follower: FolderFollower): RouteLensApi {
  const refollow = (): void => void follower.restart().catch(() => undefined);
  return {
    ...api,
    followFolders: async (input) => {
      const list = await api.followFolders(input);
      refollow();
      return list;
    },
    unfollowFolder: async (input) => {
      const list = await api.unfollowFolder(input);
      refollow();
      return list;
    },
  };
}
