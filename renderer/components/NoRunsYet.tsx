import { logFormatList } from '../../shared/logFormats.ts';
import { useAppStore } from '../store/index.ts';
import { EmptyState } from './EmptyState.tsx';
import { ImportButton } from './ImportButton.tsx';

/** Shown by every view when the database has no runs yet. */
export function NoRunsYet() {
  const path = useAppStore((s) => s.dbInfo?.path);
  return (
    <EmptyState title="No runs yet" command={`routelens import <path> --db ${path ?? '<file>'}`} testId="no-runs">
      <p>
        Import trajectory logs into this database: drop files or folders anywhere on this window, or choose them. RouteLens reads{' '}
        {logFormatList()}.
      </p>
      <ImportButton primary testId="import-open-empty" />
      <p className="empty-state-or faint">or from a terminal:</p>
    </EmptyState>
  );
}
