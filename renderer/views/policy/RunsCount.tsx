/**
 * The runs a replay or diff is over, as a count that opens the list: forty run names inline push the
 * Replay button off the card, and the top bar's picker is where the selection changes.
 */
import { Popover } from '../../components/Popover.tsx';
import { plural } from '../../format/numbers.ts';

export function RunsCount({ runs, all = false, testId }: { runs: readonly { id: number; name: string }[]; all?: boolean; testId: string }) {
  const label = all ? `all ${plural(runs.length, 'run')}` : plural(runs.length, 'run');
  return (
    <Popover testId={testId} button={<span>{label}</span>} buttonTitle="The runs replayed: change them in the top bar">
      {() => (
        <ul className="lab-runs-list" data-testid={`${testId}-list`} aria-label="Runs">
          {runs.map((r) => (
            <li key={r.id} className="mono">
              {r.name}
            </li>
          ))}
        </ul>
      )}
    </Popover>
  );
}
