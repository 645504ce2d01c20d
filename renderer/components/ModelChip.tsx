import { useModelColor } from '../store/index.ts';
import { VisibleName, visibleTitle } from './VisibleName.tsx';

/** A model's name with its palette colour; the same chip everywhere a model is named. */
export function ModelChip({ name, detail, compact }: { name: string; detail?: string; compact?: boolean }) {
  const color = useModelColor(name);
  return (
    <span className={compact ? 'chip chip-compact' : 'chip'} data-testid="model-chip" data-model={name} title={visibleTitle(name)}>
      <span className="chip-dot" style={{ background: color }} />
      <VisibleName name={name} className="chip-name" />
      {detail !== undefined && <span className="chip-detail">{detail}</span>}
    </span>
  );
}

/** Just the colour, for dense places (table cells); the name is in the tooltip. */
export function ModelDot({ name }: { name: string }) {
  const color = useModelColor(name);
  return <span className="chip-dot" style={{ background: color }} title={visibleTitle(name)} data-model={name} />;
}
