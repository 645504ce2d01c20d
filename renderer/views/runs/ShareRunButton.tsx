/** The Runs view's "Share as HTML…": one run of those listed (the first unless another is chosen), as one HTML file. */
import { useState } from 'react';
import type { RunSummary } from '../../../shared/api.ts';
import { RUN_EPISODES_IN_FULL } from '../../../shared/caseFile.ts';
import { ShareCaseButton } from '../../components/ShareCaseButton.tsx';

export function ShareRunButton({ runs }: { runs: readonly RunSummary[] }) {
  const [chosen, setChosen] = useState<number | null>(null);
  const run = runs.find((r) => r.id === chosen) ?? runs[0];
  return (
    <ShareCaseButton what={`a run: its summary and sessions, the first ${RUN_EPISODES_IN_FULL} in full`} request={run ? { run: run.id } : null}>
      <label className="share-case-field">
        <span className="field-label">Run</span>
        <select value={run?.id ?? ''} onChange={(e) => setChosen(Number(e.target.value))} data-testid="share-case-run">
          {runs.map((r) => (
            <option key={r.id} value={r.id}>
              {r.name}
            </option>
          ))}
        </select>
      </label>
    </ShareCaseButton>
  );
}
