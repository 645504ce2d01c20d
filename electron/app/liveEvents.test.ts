// Issue 36 items 3 and 5 in the desktop app: the main process hands the window each change of its database and each
// new alert over IPC, and shows each alert once as a desktop notification (when the desktop has notifications).
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { LiveEvent } from '../../shared/apiLive.ts';
import { openDatabase } from '../db/database.ts';
import { createDataEvents } from '../live/dataEvents.ts';
import { openApiDatabase } from '../services/api.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';
import { FakeNotification } from './fakeElectron.ts';
import { forwardLiveEvents } from './liveEvents.ts';

const tempDir = useSuiteTempDir();

async function until(check: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
}

afterEach(() => {
  FakeNotification.shown = [];
  FakeNotification.supported = true;
});

function setUp() {
  const path = join(tempDir(), `live-${Math.random().toString(36).slice(2)}.db`);
  openDatabase(path).close();
  const reader = openApiDatabase(path);
  const writer = openDatabase(path);
  const fire = (episode: string) =>
    writer.prepare('INSERT INTO alerts (run, episode, rule, fired_at, message) VALUES (?, ?, ?, ?, ?)')
      .run('run-a', episode, 'model~opus streak>20', new Date().toISOString(), `${episode}: 21 calls in a row to claude-opus-4`);
  const events = createDataEvents(reader, 20);
  const done = () => {
    events.close();
    reader.close();
    writer.close();
  };
  return { events, fire, done };
}

describe('forwardLiveEvents', () => {
  it('sends the window every change and alert, and notifies each alert once; a click brings the window', async () => {
    const { events, fire, done } = setUp();
    const sent: LiveEvent[] = [];
    const clicked: string[] = [];
    const stop = forwardLiveEvents(events, (e) => sent.push(e), FakeNotification, (a) => clicked.push(a.episode));
    try {
      fire('s1');
      await until(() => sent.some((e) => e.type === 'alert'));
      expect(sent.map((e) => e.type)).toEqual(['data', 'alert']);
      expect(FakeNotification.shown.map((n) => n.options)).toEqual([
        { title: 'RouteLens alert · s1', body: 's1: 21 calls in a row to claude-opus-4\nrun-a · model~opus streak>20' },
      ]);
      FakeNotification.shown[0]?.emit('click');
      expect(clicked).toEqual(['s1']);
      stop();
      expect(events.polling).toBe(false);
    } finally {
      done();
    }
  });

  it('still hands the window the alert where the desktop has no notifications', async () => {
    const { events, fire, done } = setUp();
    FakeNotification.supported = false;
    const sent: LiveEvent[] = [];
    const stop = forwardLiveEvents(events, (e) => sent.push(e), FakeNotification, () => undefined);
    try {
      fire('s2');
      await until(() => sent.some((e) => e.type === 'alert'));
      expect(sent.find((e) => e.type === 'alert')).toMatchObject({ alert: { episode: 's2' } });
      expect(FakeNotification.shown).toEqual([]);
    } finally {
      stop();
      done();
    }
  });
});
