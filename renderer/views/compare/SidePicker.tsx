/** One side of the comparison: its runs (several make a group) and, optionally, the one value of a field it keeps. */
import { useId } from 'react';
import { COMPARE_FIELDS, type CompareField } from '../../../shared/apiCompare.ts';
import { sideColorsOf } from '../../../shared/charts/layouts/compareCommon.ts';
import { textOn } from '../../../shared/charts/marks.ts';
import { ownRunColor } from '../../../shared/charts/palette.ts';
import { visibleText } from '../../../shared/displayText.ts';
import { CheckList } from '../../components/CheckList.tsx';
import { Popover } from '../../components/Popover.tsx';
import { VisibleName } from '../../components/VisibleName.tsx';
import { plural } from '../../format/numbers.ts';
import { useAppStore } from '../../store/index.ts';
import { FIELD_LABELS, type SideDraft } from './compareForm.ts';
import { useCompare } from './compareStore.ts';

/** Values a field can take that the window already knows (the runs' models and policies); the rest are typed. */
function suggestions(field: CompareField | '', runs: { models: string[]; policy_name: string | null }[]): string[] {
  if (field === 'model') return [...new Set(runs.flatMap((r) => r.models))].sort();
  if (field === 'policy') return [...new Set(runs.flatMap((r) => (r.policy_name ? [r.policy_name] : [])))].sort();
  if (field === 'split') return ['train', 'val', 'test'];
  return [];
}

/**
 * A side's colour while it is drawn up: that of its run when it is one whole run (as the comparison will colour
 * it, compareCommon.ts), else none yet (a group or a split is coloured by the label the comparison gives it).
 */
function useDraftColor(side: 'a' | 'b'): string | null {
  const a = useCompare((s) => s.a);
  const b = useCompare((s) => s.b);
  const runs = useAppStore((s) => s.runs);
  const single = (d: SideDraft): string | null => (d.runIds.length === 1 && d.field === '' ? (runs.find((r) => r.id === d.runIds[0])?.name ?? null) : null);
  const keys = { a: single(a), b: single(b) };
  const own = keys[side];
  if (own === null) return null;
  const other = keys[side === 'a' ? 'b' : 'a'];
  // A side not decided yet cannot clash with this one.
  return other === null ? ownRunColor(own) : sideColorsOf(keys.a as string, keys.b as string)[side];
}

export function SidePicker({ side, disabled }: { side: 'a' | 'b'; disabled: boolean }) {
  const draft = useCompare((s) => s[side]);
  const color = useDraftColor(side);
  const setSide = useCompare((s) => s.setSide);
  const runs = useAppStore((s) => s.runs);
  const id = useId();
  const letter = side.toUpperCase();
  const chosen = runs.filter((r) => draft.runIds.includes(r.id));
  const label =
    chosen.length === 0 ? 'Choose runs…' : chosen.length === 1 ? <VisibleName name={chosen[0]?.name ?? ''} /> : `${chosen.length} runs (a group)`;
  const options = suggestions(draft.field, chosen.length > 0 ? chosen : runs);
  return (
    <fieldset className="card compare-side" data-testid={`compare-side-${side}`} disabled={disabled}>
      <legend className="compare-side-title">
        <span className={color ? 'compare-side-letter' : 'compare-side-letter is-undecided'} style={color ? { background: color, color: textOn(color) } : undefined} aria-hidden="true">
          {letter}
        </span>
        Side {letter}
      </legend>
      <div className="compare-side-row">
        <span className="field-label">Runs</span>
        <Popover testId={`compare-runs-${side}`} button={<span className="run-selector-label">{label}</span>} buttonTitle={chosen.map((r) => visibleText(r.name)).join('\n')} active={chosen.length > 0}>
          {() => (
            <CheckList
              noun="run"
              items={runs.map((r) => ({ key: String(r.id), label: visibleText(r.name), adornment: <span className="format-tag">{r.format}</span>, detail: plural(r.episodes, 'episode') }))}
              selected={new Set(draft.runIds.map(String))}
              onChange={(next) => setSide(side, { runIds: [...next].map(Number) })}
            />
          )}
        </Popover>
      </div>
      <div className="compare-side-row">
        <label className="field-label" htmlFor={`${id}-field`}>
          Keep
        </label>
        <select
          id={`${id}-field`}
          value={draft.field}
          onChange={(e) => setSide(side, { field: e.target.value as CompareField | '' })}
          data-testid={`compare-field-${side}`}
        >
          <option value="">whole runs</option>
          {COMPARE_FIELDS.map((f) => (
            <option key={f} value={f}>
              only one {FIELD_LABELS[f]}
            </option>
          ))}
        </select>
        {draft.field !== '' && (
          <>
            <input
              type="text"
              className="mono"
              list={`${id}-values`}
              value={draft.value}
              placeholder={FIELD_LABELS[draft.field]}
              aria-label={`${FIELD_LABELS[draft.field]} that ${letter} keeps`}
              onChange={(e) => setSide(side, { value: e.target.value })}
              data-testid={`compare-value-${side}`}
              spellCheck={false}
              autoComplete="off"
            />
            <datalist id={`${id}-values`}>
              {options.map((o) => (
                <option key={o} value={o} />
              ))}
            </datalist>
          </>
        )}
      </div>
    </fieldset>
  );
}
