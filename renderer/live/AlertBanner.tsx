/**
 * Alerts pushed to this window (issue 36 item 5): one banner each, the rule's message as text, over the view. A click
 * opens the session it is about (found by its run and episode names: alerts are keyed by names, not ids); × dismisses.
 */
import { useState } from 'react';
import type { AlertRow } from '../../shared/apiLive.ts';
import { api, errorMessage } from '../api/index.ts';
import { CloseIcon } from '../components/icons.tsx';
import { useAppStore } from '../store/index.ts';
import { useLiveStore } from './liveStore.ts';

function Banner({ alert }: { alert: AlertRow }) {
  const dismiss = useLiveStore((s) => s.dismiss);
  const navigate = useAppStore((s) => s.navigate);
  const [problem, setProblem] = useState<string | null>(null);
  const open = () => {
    api.getEpisode({ ext_id: alert.episode, run: alert.run }).then(
      (detail) => {
        dismiss(alert.id);
        navigate({ view: 'episode', episodeId: detail.episode.id, turn: null });
      },
      (err: unknown) => setProblem(errorMessage(err)),
    );
  };
  return (
    <div className="alert-banner" role="alert" data-testid="alert-banner" data-alert-id={alert.id}>
      <button type="button" className="alert-banner-open" onClick={open} title={`Open ${alert.episode} (${alert.run})`} data-testid="alert-open">
        <span className="alert-banner-rule mono">{alert.rule}</span>
        <span className="alert-banner-message">{alert.message}</span>
        <span className="alert-banner-where faint">
          {alert.run} · {alert.episode}
        </span>
        {problem && <span className="alert-banner-problem">{problem}</span>}
      </button>
      <button type="button" className="btn btn-ghost btn-icon" onClick={() => dismiss(alert.id)} aria-label="Dismiss this alert" data-testid="alert-dismiss">
        <CloseIcon />
      </button>
    </div>
  );
}

export function AlertBanners() {
  const banners = useLiveStore((s) => s.banners);
  if (banners.length === 0) return null;
  return (
    <div className="alert-banners" data-testid="alert-banners">
      {banners.map((a) => (
        <Banner key={a.id} alert={a} />
      ))}
    </div>
  );
}
