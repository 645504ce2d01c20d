/** "running": a session whose log was written within the last few minutes, with how long ago on hover. */
import { useState } from 'react';
import type { LiveSession } from '../../shared/apiLive.ts';
import { agoText } from './liveText.ts';
import { useLiveStore } from './liveStore.ts';
import './live.css';

/** `compact`: for a list's cell, the word gives way to the dot in a narrow window (the tooltip still says it). */
export function LiveBadge({ session, compact }: { session: Pick<LiveSession, 'last_at'>; compact?: boolean }) {
  const readAt = useLiveStore((s) => s.readAt);
  // "40 s ago" as of the hover, not of the last time the list was read.
  const [hoveredAt, setHoveredAt] = useState(0);
  const title = `Running: last write ${agoText(session.last_at, Math.max(readAt, hoveredAt))} (${new Date(session.last_at).toLocaleTimeString()})`;
  return (
    <span
      className={compact ? 'badge live-badge is-compact' : 'badge live-badge'}
      title={title}
      aria-label={title}
      onMouseEnter={() => setHoveredAt(Date.now())}
      data-testid="live-badge"
    >
      <span className="live-dot" aria-hidden="true" />
      <span className="live-word">running</span>
    </span>
  );
}

/** The badge of episode `id`, or nothing when it is not running. */
export function EpisodeLiveBadge({ episodeId, compact }: { episodeId: number; compact?: boolean }) {
  const session = useLiveStore((s) => s.byEpisode.get(episodeId));
  return session ? <LiveBadge session={session} compact={compact} /> : null;
}

/** A run's badge: running when one of its sessions is; the hover names the latest write. */
export function RunLiveBadge({ runId }: { runId: number }) {
  const latest = useLiveStore((s) => (s.liveRuns.has(runId) ? s.sessions.find((x) => x.run_id === runId) : undefined));
  return latest ? <LiveBadge session={latest} /> : null;
}
