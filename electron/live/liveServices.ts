/** The live calls of the contract over one SQLite database (shared/apiLive.ts). */
import type { RouteLensApi } from '../../shared/api.ts';
import { LIVE_WITHIN_MINUTES } from '../../shared/apiLive.ts';
import { openDatabase } from '../db/database.ts';
import type { Db } from '../db/dbHandle.ts';
import type { WriteQueue } from '../services/writeQueue.ts';
import { addFollowedRoots, checkedFolder, listFollowedRoots, removeFollowedRoot } from './followedRoots.ts';
import { liveSessions } from './liveSessions.ts';

type LiveApi = Pick<RouteLensApi, 'liveSessions' | 'followedFolders' | 'followFolders' | 'unfollowFolder'>;

export function liveServices(db: Db, dbPath: string, writes: WriteQueue): LiveApi {
  const memory = db.memory || dbPath === '' || dbPath === ':memory:';
  const write = async (what: string, run: (writer: Db) => void): Promise<void> => {
    await writes.run(what, async () => {
      if (memory) return run(db);
      const writer = openDatabase(dbPath);
      try {
        run(writer);
      } finally {
        writer.close();
      }
    });
  };
  return {
    liveSessions: async (input) => liveSessions(db, input.withinMinutes ?? LIVE_WITHIN_MINUTES),
    followedFolders: async () => listFollowedRoots(db),
    followFolders: async (input) => {
      // Every path is checked before any is written: one bad path adds none.
      const folders = input.paths.map(checkedFolder);
      await write('followed folders', (writer) => addFollowedRoots(writer, folders));
      return listFollowedRoots(db);
    },
    unfollowFolder: async (input) => {
      await write('followed folders', (writer) => void removeFollowedRoot(writer, input.path));
      return listFollowedRoots(db);
    },
  };
}
