import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chooseDatabase, dbArg } from './dbPath.ts';

describe('database choice', () => {
  it('reads --db FILE and --db=FILE from an Electron argv', () => {
    expect(dbArg(['/usr/bin/electron', 'dist/electron/main.cjs', '--db', 'x.db'])).toBe('x.db');
    expect(dbArg(['RouteLens', '--db=/data/y.db'])).toBe('/data/y.db');
    expect(dbArg(['RouteLens', '--db'])).toBeUndefined();
    expect(dbArg(['RouteLens', '--dbx', 'z'])).toBeUndefined();
  });

  it('prefers --db, then ROUTELENS_DB, then the demo, resolving relative paths from the working folder', () => {
    const argv = ['electron', 'main.cjs', '--db', 'a.db'];
    expect(chooseDatabase(argv, { ROUTELENS_DB: 'b.db' }, '/demo.db', '/w')).toEqual({ path: resolve('/w', 'a.db'), source: 'argv' });
    expect(chooseDatabase(['electron'], { ROUTELENS_DB: 'b.db' }, '/demo.db', '/w')).toEqual({ path: resolve('/w', 'b.db'), source: 'env' });
    expect(chooseDatabase(['electron'], { ROUTELENS_DB: '' }, '/demo.db', '/w')).toEqual({ path: '/demo.db', source: 'demo' });
  });
});
