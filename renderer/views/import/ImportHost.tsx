/**
 * Dropping logs anywhere on the window: a full-window overlay while files are dragged over it, and on drop
 * the import dialog opens with what was dropped (folders walked). Lives in the main bundle, because it must
 * listen from the start; the dialog itself is a chunk loaded when first opened.
 *
 * Every drag of files has its default prevented, also when the app is not ready: in the desktop window the
 * default drop would navigate away to the file.
 */
import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { logFormatList } from '../../../shared/logFormats.ts';
import { useAppStore } from '../../store/index.ts';
import { collectDrop, snapshotDrop } from './pickedFiles.ts';

const ImportDialog = lazy(() => import('./ImportDialog.tsx'));

function carriesFiles(e: DragEvent): boolean {
  return e.dataTransfer?.types.includes('Files') ?? false;
}

export function ImportHost() {
  const open = useAppStore((s) => s.importOpen);
  const ready = useAppStore((s) => s.status === 'ready');
  const [dragging, setDragging] = useState(false);
  const opener = useRef<HTMLElement | null>(null);

  useEffect(
    () =>
      // Store listeners run inside `set`, before React renders the inert app (which would take focus away).
      useAppStore.subscribe((s, prev) => {
        if (s.importOpen && !prev.importOpen) opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      }),
    [],
  );

  useEffect(() => {
    // Closed: the app is no longer inert, so focus can go back to what opened the dialog.
    if (open || !opener.current) return;
    if (opener.current.isConnected) opener.current.focus();
    opener.current = null;
  }, [open]);

  useEffect(() => {
    // enter/leave fire for every element crossed; the count is zero only once the drag has left the window.
    let depth = 0;
    const onEnter = (e: DragEvent) => {
      if (!carriesFiles(e)) return;
      e.preventDefault();
      depth++;
      setDragging(true);
    };
    const onOver = (e: DragEvent) => {
      if (!carriesFiles(e)) return;
      e.preventDefault();
      if (e.dataTransfer) e.dataTransfer.dropEffect = useAppStore.getState().status === 'ready' ? 'copy' : 'none';
    };
    const onLeave = (e: DragEvent) => {
      if (!carriesFiles(e)) return;
      depth = Math.max(0, depth - 1);
      if (depth === 0) setDragging(false);
    };
    const onDrop = (e: DragEvent) => {
      if (!carriesFiles(e) || !e.dataTransfer) return;
      e.preventDefault();
      depth = 0;
      setDragging(false);
      if (useAppStore.getState().status !== 'ready') return;
      const items = snapshotDrop(e.dataTransfer);
      // collectDrop does not reject: what cannot be read is listed in its answer, and the dialog says so.
      void collectDrop(items).then((picked) => useAppStore.getState().openImport(picked));
    };
    window.addEventListener('dragenter', onEnter);
    window.addEventListener('dragover', onOver);
    window.addEventListener('dragleave', onLeave);
    window.addEventListener('drop', onDrop);
    return () => {
      window.removeEventListener('dragenter', onEnter);
      window.removeEventListener('dragover', onOver);
      window.removeEventListener('dragleave', onLeave);
      window.removeEventListener('drop', onDrop);
    };
  }, []);

  return (
    <>
      {open && (
        <Suspense fallback={null}>
          <ImportDialog />
        </Suspense>
      )}
      {dragging && ready && (
        <div className="drop-overlay" data-testid="drop-overlay" aria-hidden="true">
          <div className="drop-overlay-card">
            <strong>Drop trajectory logs or folders to import</strong>
            <span>{logFormatList()}</span>
          </div>
        </div>
      )}
    </>
  );
}
