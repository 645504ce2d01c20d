/** A filterable list of checkboxes for multi-selects (runs, models). */
import { useId, useState, type ReactNode } from 'react';

export interface CheckItem {
  key: string;
  label: string;
  /** Drawn before the label (a colour dot, a format badge). */
  adornment?: ReactNode;
  detail?: string;
  /** More text the filter matches besides the label (a run's format and models). */
  search?: string;
}

export function CheckList({
  items,
  selected,
  onChange,
  noun,
}: {
  items: CheckItem[];
  selected: ReadonlySet<string>;
  onChange(next: Set<string>): void;
  noun: string;
}) {
  const [filter, setFilter] = useState('');
  const id = useId();
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  const shown = words.length > 0 ? items.filter((i) => words.every((w) => `${i.label}\n${i.search ?? ''}`.toLowerCase().includes(w))) : items;
  const toggle = (key: string) => {
    const next = new Set(selected);
    if (next.has(key)) next.delete(key);
    else next.add(key);
    onChange(next);
  };
  return (
    <div className="checklist">
      <div className="checklist-head">
        {items.length > 8 && (
          <input
            type="search"
            placeholder={`Filter ${noun}s…`}
            data-testid="checklist-filter"
            value={filter}
            onChange={(e) => setFilter(e.target.value)}
            aria-label={`Filter ${noun}s`}
          />
        )}
        {words.length > 0 && (
          <button
            type="button"
            className="btn btn-ghost"
            disabled={shown.length === 0 || shown.every((i) => selected.has(i.key))}
            onClick={() => onChange(new Set([...selected, ...shown.map((i) => i.key)]))}
            data-testid="checklist-select-matching"
          >
            Select {shown.length} matching
          </button>
        )}
        <button type="button" className="btn btn-ghost" disabled={selected.size === 0} onClick={() => onChange(new Set())}>
          All {noun}s
        </button>
      </div>
      <ul className="checklist-items">
        {shown.map((item) => {
          const inputId = `${id}-${item.key}`;
          return (
            <li key={item.key}>
              <input type="checkbox" id={inputId} aria-label={item.label} checked={selected.has(item.key)} onChange={() => toggle(item.key)} />
              <label htmlFor={inputId} title={item.label}>
                {item.adornment}
                <span className="checklist-label">{item.label}</span>
                {item.detail && <span className="checklist-detail num">{item.detail}</span>}
              </label>
            </li>
          );
        })}
        {shown.length === 0 && <li className="faint checklist-none">No {noun} matches “{filter}”.</li>}
      </ul>
    </div>
  );
}
