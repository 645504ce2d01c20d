/**
 * Renaming an estimator in place: "estimator-2026-11-24T10-02-11-123Z" says nothing about what it learned
 * from, and its name is what every view that shows ŝ prints. The core checks the name (renameEstimator);
 * the answer replaces the estimator list every view reads.
 */
import { useState, type FormEvent } from 'react';
import { RenameEstimatorInput, type EstimatorSummary } from '../../../shared/apiEstimator.ts';
import { api, errorMessage } from '../../api/index.ts';
import { FIELD_KEYS, matches } from '../../shortcuts.ts';
import { useAppStore } from '../../store/index.ts';
import './rename.css';

export function RenameEstimator({ estimator }: { estimator: Pick<EstimatorSummary, 'id' | 'name'> }) {
  const [draft, setDraft] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);

  if (draft === null) {
    return (
      <button type="button" className="btn btn-ghost" onClick={() => setDraft(estimator.name)} data-testid="estimator-rename">
        Rename
      </button>
    );
  }

  const save = async (e: FormEvent) => {
    e.preventDefault();
    if (draft.trim() === '' || draft.trim() === estimator.name) {
      setDraft(null);
      return;
    }
    // The contract's own rule, checked here first: a name the core would refuse is said at once.
    const checked = RenameEstimatorInput.shape.name.safeParse(draft);
    if (!checked.success) {
      setProblem(checked.error.issues[0]?.message ?? 'not a usable name');
      return;
    }
    setBusy(true);
    setProblem(null);
    try {
      const list = await api.renameEstimator({ estimatorId: estimator.id, name: draft.trim() });
      useAppStore.setState({ estimators: list });
      setDraft(null);
    } catch (err) {
      setProblem(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="est-rename" onSubmit={(e) => void save(e)} data-testid="estimator-rename-form">
      <input
        type="text"
        className="mono"
        aria-label="New name of this estimator"
        value={draft}
        maxLength={80}
        autoFocus
        disabled={busy}
        onChange={(e) => setDraft(e.target.value)}
        onKeyDown={(e) => {
          if (matches(FIELD_KEYS.cancel, e)) setDraft(null);
        }}
        aria-invalid={problem !== null}
        data-testid="estimator-rename-input"
      />
      <button type="submit" className="btn btn-primary" disabled={busy} data-testid="estimator-rename-save">
        Save
      </button>
      <button type="button" className="btn btn-ghost" disabled={busy} onClick={() => setDraft(null)}>
        Cancel
      </button>
      {problem && (
        <span className="est-rename-problem" role="alert">
          {problem}
        </span>
      )}
    </form>
  );
}
