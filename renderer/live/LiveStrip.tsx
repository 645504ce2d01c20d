/**
 * The inspector header's line for a running session (issue 36 item 4): spend so far (a lower bound while a call's cost
 * is unknown, never $0 for unknown), the spend rate over the last 10 minutes, the model mix and how many calls in a
 * row went to the current model.
 */
import { RATE_WINDOW_MINUTES } from '../../shared/apiLive.ts';
import { KnownCost } from '../components/figures.tsx';
import { ModelChip } from '../components/ModelChip.tsx';
import { formatCost, formatCount, plural } from '../format/numbers.ts';
import { useLiveStore } from './liveStore.ts';
import { rateText } from './liveText.ts';

export function LiveStrip({ episodeId }: { episodeId: number }) {
  const s = useLiveStore((st) => st.byEpisode.get(episodeId));
  if (!s) return null;
  const rateTitle =
    s.rate_usd_per_h === null
      ? "Unknown: this log's calls carry no timestamps"
      : `Known cost of the calls in the last ${RATE_WINDOW_MINUTES} minutes, per hour${s.rate_unpriced_calls > 0 ? `; ${plural(s.rate_unpriced_calls, 'call')} of unknown cost left out` : ''}`;
  return (
    <div className="live-strip" data-testid="live-strip">
      <span className="live-stat" title="Spend so far">
        <span className="faint">spent</span>{' '}
        {s.unpriced_calls > 0 ? <KnownCost known={s.known_cost} unpriced={s.unpriced_calls} short /> : <span className="num">{formatCost(s.known_cost)}</span>}
      </span>
      <span className="live-stat" title={rateTitle} data-testid="live-rate">
        <span className="faint">last {RATE_WINDOW_MINUTES} min</span> <span className="num">{rateText(s.rate_usd_per_h, s.rate_unpriced_calls)}</span>
      </span>
      <span className="live-stat" title="Calls in a row to the current model, ending with the latest" data-testid="live-streak">
        <span className="num">{formatCount(s.calls_since_switch)}</span> <span className="faint">{s.calls_since_switch === 1 ? 'call' : 'calls'} since switch</span>
      </span>
      <span className="live-mix" data-testid="live-mix">
        {s.model_mix.map((m) => (
          <ModelChip key={m.model} name={m.model} detail={plural(m.calls, 'call')} compact />
        ))}
      </span>
    </div>
  );
}
