/**
 * When an episode was last active, as its log says: the latest timestamp of a turn or a message (issue 36, the
 * "running" badge and the cost rate of live sessions). Logs write timestamps with offsets or without fractions;
 * each is read as an instant and the latest is given back in one form (ISO 8601 UTC), so later ones compare as text.
 */
import type { CanonicalEpisode } from '../../shared/canonical.ts';

/** The latest instant among the episode's timestamps, ISO 8601 UTC, or null when it gives none that parses. */
export function lastActivityOf(ep: CanonicalEpisode): string | null {
  let latest = Number.NEGATIVE_INFINITY;
  const see = (stamp: string | null | undefined): void => {
    if (!stamp) return;
    const ms = Date.parse(stamp);
    if (Number.isFinite(ms) && ms > latest) latest = ms;
  };
  see(ep.started_at);
  for (const turn of ep.turns) {
    see(turn.timestamp);
    for (const m of turn.inputs ?? []) see(m.timestamp);
  }
  for (const m of ep.final_messages ?? []) see(m.timestamp);
  return Number.isFinite(latest) ? new Date(latest).toISOString() : null;
}
