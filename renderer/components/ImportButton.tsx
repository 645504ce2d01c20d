/** Opens the import dialog (views/import): in the Runs header and in every "no runs yet" state. */
import { useAppStore, useOnStore } from '../store/index.ts';
import { ImportIcon } from './icons.tsx';

export function ImportButton({ testId = 'import-open', primary = false }: { testId?: string; primary?: boolean }) {
  const openImport = useAppStore((s) => s.openImport);
  // A ClickHouse store is filled by `routelens import --store URL`, not from the window.
  const onStore = useOnStore();
  if (onStore) return null;
  return (
    <button type="button" className={primary ? 'btn btn-primary' : 'btn'} onClick={() => openImport()} data-testid={testId}>
      <ImportIcon />
      Import logs…
    </button>
  );
}
