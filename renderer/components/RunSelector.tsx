/**
 * The top bar's multi-select of runs; the selection filters every view (empty = all runs). Its filter
 * matches a run's name, format and models, and "Select N matching" takes every run it finds.
 */
import { useAppStore } from '../store/index.ts';
import { plural } from '../format/numbers.ts';
import { CheckList } from './CheckList.tsx';
import { Popover } from './Popover.tsx';
import { VisibleName, visibleTitle } from './VisibleName.tsx';
import { visibleText } from '../../shared/displayText.ts';

export function RunSelector({ testId = 'run-selector' }: { testId?: string }) {
  const runs = useAppStore((s) => s.runs);
  const runIds = useAppStore((s) => s.runIds);
  const setRunIds = useAppStore((s) => s.setRunIds);
  const selected = runs.filter((r) => runIds.includes(r.id));
  const label =
    selected.length === 0 ? `All runs (${runs.length})` : selected.length === 1 ? <VisibleName name={selected[0]?.name ?? ''} /> : `${selected.length} of ${runs.length} runs`;
  return (
    <Popover
      testId={testId}
      button={<span className="run-selector-label">{label}</span>}
      buttonTitle={selected.map((r) => visibleTitle(r.name)).join('\n') || 'Every run in the database'}
      active={selected.length > 0}
    >
      {() => (
        <CheckList
          noun="run"
          items={runs.map((r) => ({
            key: String(r.id),
            label: visibleText(r.name), // escapes any hidden character, so look-alike names differ
            adornment: <span className="format-tag">{r.format}</span>,
            detail: plural(r.episodes, 'episode'),
            search: [r.format, r.policy_name ?? '', ...r.models].join('\n'),
          }))}
          selected={new Set(runIds.map(String))}
          onChange={(next) => setRunIds([...next].map(Number))}
        />
      )}
    </Popover>
  );
}
