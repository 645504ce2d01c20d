/**
 * "Follow folders…" (issue 36 item 1): the folders this database follows, remembered in it (followed_roots). Add one
 * by its path on the machine running RouteLens (in the desktop app also File → Follow folders…, with the system's
 * folder picker); remove one. What a folder's agents write is imported as they write it while serve runs.
 */
import { useEffect, useState, type FormEvent } from 'react';
import type { FollowedFolder } from '../../shared/apiLive.ts';
import { api, errorMessage, transport } from '../api/index.ts';
import { Modal } from '../components/Modal.tsx';
import { useAppStore } from '../store/index.ts';
import { useLiveStore } from './liveStore.ts';
import './live.css';

export function FollowFoldersButton() {
  const onStore = useAppStore((s) => s.dbInfo?.store === 'clickhouse');
  const setOpen = useLiveStore((s) => s.setFollowOpen);
  if (onStore) return null; // nothing follows files into a store
  return (
    <button
      type="button"
      className="btn"
      onClick={() => setOpen(true)}
      title="Follow the folders agents write their logs to: new sessions and new calls show up as they are written"
      data-testid="follow-folders-button"
    >
      Follow folders…
    </button>
  );
}

export function FollowFoldersHost() {
  const open = useLiveStore((s) => s.followOpen);
  return open ? <FollowFoldersDialog /> : null;
}

function FollowFoldersDialog() {
  const setOpen = useLiveStore((s) => s.setFollowOpen);
  const dataVersion = useAppStore((s) => s.dataVersion);
  const [folders, setFolders] = useState<readonly FollowedFolder[] | null>(null);
  const [path, setPath] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);

  // Read again when the database changes: the desktop app's menu may have added one meanwhile.
  useEffect(() => {
    let live = true;
    api.followedFolders({}).then(
      (list) => live && setFolders(list),
      (err: unknown) => live && setProblem(errorMessage(err)),
    );
    return () => {
      live = false;
    };
  }, [dataVersion]);

  const change = (call: () => Promise<readonly FollowedFolder[]>, after?: () => void) => {
    setBusy(true);
    setProblem(null);
    call().then(
      (list) => {
        setFolders(list);
        after?.();
      },
      (err: unknown) => setProblem(errorMessage(err)),
    ).finally(() => setBusy(false));
  };
  const add = (e: FormEvent) => {
    e.preventDefault();
    if (path.trim() === '') return;
    change(() => api.followFolders({ paths: [path.trim()] }), () => setPath(''));
  };

  return (
    <Modal title="Follow folders" onClose={() => setOpen(false)} testId="follow-dialog" className="follow-modal">
      <p className="muted follow-intro">
        RouteLens imports the logs agents write in these folders as they write them, and remembers the folders in this
        database. Sessions written in the last few minutes show as <em>running</em>.
      </p>
      {folders === null && !problem && <p className="muted">Loading…</p>}
      {folders !== null && folders.length === 0 && (
        <p className="faint" data-testid="follow-none">
          No folder followed yet.
        </p>
      )}
      {folders !== null && folders.length > 0 && (
        <ul className="follow-list" data-testid="follow-list">
          {folders.map((f) => (
            <li key={f.path} className="follow-item" data-testid="follow-item">
              <span className="mono follow-path" title={f.path}>
                {f.path}
              </span>
              <span className="faint follow-since" title={f.added_at}>
                since {new Date(f.added_at).toLocaleDateString()}
              </span>
              <button
                type="button"
                className="btn btn-ghost"
                disabled={busy}
                onClick={() => change(() => api.unfollowFolder({ path: f.path }))}
                aria-label={`Stop following ${f.path}`}
                data-testid="follow-remove"
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <form className="follow-add" onSubmit={add}>
        <label className="follow-field">
          <span>Folder to follow</span>
          <input
            type="text"
            className="mono"
            value={path}
            onChange={(e) => setPath(e.target.value)}
            placeholder="/home/me/.claude/projects"
            maxLength={4096}
            spellCheck={false}
            data-autofocus
            data-testid="follow-path"
          />
        </label>
        <button type="submit" className="btn btn-primary" disabled={busy || path.trim() === ''} data-testid="follow-add">
          Follow
        </button>
      </form>
      {transport === 'ipc' && <p className="faint follow-hint">Or choose one with File → Follow folders….</p>}
      {problem && (
        <p className="follow-problem" role="alert" data-testid="follow-problem">
          {problem}
        </p>
      )}
    </Modal>
  );
}
