import { useAppStore } from '../store/index.ts';
import { EmptyState } from './EmptyState.tsx';

/** Shown by every view when the database has no runs yet. */
export function NoRunsYet() {
  const path = useAppStore((s) => s.dbInfo?.path);
  return (
    <EmptyState title="No runs yet" command={`routelens import <path> --db ${path ?? '<file>'}`} testId="no-runs">
      Import trajectory logs (canonical JSONL, mini-swe-agent, SWE-agent, Inspect AI…) into this database, then reload.
    </EmptyState>
  );
}
