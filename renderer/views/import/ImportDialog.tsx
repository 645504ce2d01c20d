/**
 * The import dialog, in the four steps of the store's `importPhase`: choose files (pickers, or what was
 * dropped), progress while the files are read and the core imports them, then the per-file report. Log text
 * (paths, rejection reasons, warnings) is shown as React text only.
 */
import { useEffect, useRef, type ChangeEvent } from 'react';
import type { ImportJob, ImportReport } from '../../../shared/api.ts';
import { ErrorNotice } from '../../components/EmptyState.tsx';
import { CloseIcon } from '../../components/icons.tsx';
import { logFormatList } from '../../../shared/logFormats.ts';
import { Modal } from '../../components/Modal.tsx';
import { VisibleName, visibleTitle } from '../../components/VisibleName.tsx';
import { formatBytes, formatCount, plural } from '../../format/numbers.ts';
import { formatHash } from '../../routing/route.ts';
import { importBusy, importedRunsOf } from '../../store/importSlice.ts';
import type { ImportPhase } from '../../store/storeShape.ts';
import { useAppStore } from '../../store/index.ts';
import { totalBytes, uploadProblem } from './encodeUpload.ts';
import { pathParts } from './pathParts.ts';
import { fromFileList } from './pickedFiles.ts';
import './import.css';

const FORMATS = logFormatList();

/** Warnings past this many are counted, not listed (a folder of unpriced models can warn once per model). */
const MAX_WARNINGS_SHOWN = 50;

function FilePickers() {
  const addImportFiles = useAppStore((s) => s.addImportFiles);
  const filesInput = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);

  useEffect(() => {
    // Not in React's attribute types; the DOM property is standard enough (every engine has it).
    if (folderInput.current) folderInput.current.webkitdirectory = true;
  }, []);

  const onChange = (e: ChangeEvent<HTMLInputElement>) => {
    const list = e.currentTarget.files;
    if (list) addImportFiles(fromFileList(Array.from(list)));
    e.currentTarget.value = ''; // choosing the same file again still fires change
  };

  return (
    <div className="import-drop-zone">
      <p>Drop files or folders anywhere on this window, or</p>
      <div className="import-pickers">
        <button type="button" className="btn" onClick={() => filesInput.current?.click()} data-testid="import-choose-files" data-autofocus>
          Choose files…
        </button>
        <button type="button" className="btn" onClick={() => folderInput.current?.click()} data-testid="import-choose-folder">
          Choose folder…
        </button>
      </div>
      <p className="faint import-formats">
        Reads {FORMATS}. A folder keeps its layout, so sidecars such as <code>logs/&lt;id&gt;/report.json</code> are found.
      </p>
      <input ref={filesInput} type="file" multiple hidden tabIndex={-1} onChange={onChange} data-testid="import-file-input" />
      <input ref={folderInput} type="file" multiple hidden tabIndex={-1} onChange={onChange} data-testid="import-folder-input" />
    </div>
  );
}

function ChosenFiles() {
  const files = useAppStore((s) => s.importFiles);
  const hidden = useAppStore((s) => s.importHidden);
  const unreadable = useAppStore((s) => s.importUnreadable);
  const removeImportFile = useAppStore((s) => s.removeImportFile);
  const resetImport = useAppStore((s) => s.resetImport);
  const problem = uploadProblem(files);
  return (
    <>
      {files.length > 0 && (
        <section className="import-chosen" aria-label="Files to import">
          <div className="import-chosen-head">
            <span data-testid="import-chosen-summary">
              {plural(files.length, 'file')} · {formatBytes(totalBytes(files))}
            </span>
            <button type="button" className="btn btn-ghost" onClick={() => resetImport()}>
              Clear
            </button>
          </div>
          <ul className="import-chosen-list" data-testid="import-chosen-list">
            {files.map((f) => (
              <li key={f.path} data-testid="import-chosen-file" data-path={f.path}>
                <span className="import-path mono">{f.path}</span>
                <span className="faint num">{formatBytes(f.file.size)}</span>
                <button
                  type="button"
                  className="btn btn-ghost btn-icon"
                  onClick={() => removeImportFile(f.path)}
                  aria-label={`Remove ${f.path}`}
                  title="Remove from this import"
                >
                  <CloseIcon />
                </button>
              </li>
            ))}
          </ul>
        </section>
      )}
      {hidden > 0 && (
        <p className="faint import-note" data-testid="import-hidden">
          {plural(hidden, 'hidden file or folder', 'hidden files or folders')} left out (such as .DS_Store or .git).
        </p>
      )}
      {unreadable.length > 0 && (
        <ErrorNotice title="Some dropped items could not be read:" message={unreadable.slice(0, 10).join(', ') + (unreadable.length > 10 ? ` and ${unreadable.length - 10} more` : '')} />
      )}
      {problem && (
        <div className="import-problem" role="alert" data-testid="import-problem">
          {problem}
        </div>
      )}
    </>
  );
}

function RunNameField() {
  const name = useAppStore((s) => s.importRunName);
  const setImportRunName = useAppStore((s) => s.setImportRunName);
  return (
    <div className="import-field">
      <label htmlFor="import-run-name">Run name</label>
      <input
        id="import-run-name"
        type="text"
        value={name}
        maxLength={300}
        placeholder="Optional"
        aria-describedby="import-run-name-hint"
        onChange={(e) => setImportRunName(e.target.value)}
        data-testid="import-run-name"
      />
      <span id="import-run-name-hint" className="faint">
        Puts every imported episode in this run instead of the run the log names.
      </span>
    </div>
  );
}

function ProgressBar({ value, max, label }: { value: number | null; max: number; label: string }) {
  const share = value === null || max <= 0 ? null : Math.max(0, Math.min(1, value / max));
  return (
    <div
      className={share === null ? 'progress is-indeterminate' : 'progress'}
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={max}
      aria-valuenow={value ?? undefined}
      data-testid="import-progress-bar"
    >
      <span style={share === null ? undefined : { width: `${(share * 100).toFixed(1)}%` }} />
    </div>
  );
}

function Progress({ phase }: { phase: Extract<ImportPhase, { kind: 'reading' | 'sending' | 'running' }> }) {
  if (phase.kind === 'reading') {
    return (
      <div className="import-progress" data-testid="import-progress" data-phase="reading">
        <div className="import-progress-title">Reading files…</div>
        <ProgressBar value={phase.bytesRead} max={phase.bytesTotal} label="Files read" />
        <div className="muted num-inline">
          {formatCount(phase.filesRead)} of {plural(phase.filesTotal, 'file')} · {formatBytes(phase.bytesRead)} of {formatBytes(phase.bytesTotal)}
        </div>
      </div>
    );
  }
  if (phase.kind === 'sending') {
    return (
      <div className="import-progress" data-testid="import-progress" data-phase="sending">
        <div className="import-progress-title">Sending {formatBytes(phase.bytes)} to RouteLens…</div>
        <ProgressBar value={null} max={1} label="Sending" />
      </div>
    );
  }
  const p = phase.job.progress;
  return (
    <div className="import-progress" data-testid="import-progress" data-phase="running">
      <div className="import-progress-title">{phase.job.waiting ? 'Waiting to import…' : 'Importing…'}</div>
      {phase.job.waiting && <div className="muted" data-testid="import-waiting">{phase.job.waiting}</div>}
      <ProgressBar value={p.filesDone} max={p.filesTotal} label="Files imported" />
      <div className="muted num-inline" data-testid="import-progress-counts">
        {formatCount(p.filesDone)} of {plural(p.filesTotal, 'file')} · {plural(p.episodes, 'episode')} · {plural(p.turns, 'turn')} so far
      </div>
      {p.file && (
        <div className="import-path mono faint">
          <PathText path={p.file} />
        </div>
      )}
      <p className="faint import-note">You can close this dialog: the import goes on, and its runs appear when it is done.</p>
    </div>
  );
}

const STATUS_BADGE = { imported: 'badge-success', skipped: 'badge-unknown', rejected: 'badge-failure' } as const;

/** A path that wraps at its folders (and inside a very long name), never mid-word. */
function PathText({ path }: { path: string }) {
  return (
    <>
      {pathParts(path).map((part, i) => (
        <span key={i}>
          {part}
          <wbr />
        </span>
      ))}
    </>
  );
}

/** Where the imported episodes went: each run with a link to its episodes (the Runs view lists them first too). */
function ImportedRuns({ report }: { report: ImportReport }) {
  const runs = useAppStore((s) => s.runs);
  const closeImport = useAppStore((s) => s.closeImport);
  const names = importedRunsOf(report);
  if (names.length === 0) return null;
  return (
    <section className="import-runs" data-testid="import-runs" aria-label="Runs imported into">
      <span className="muted">{names.length === 1 ? 'Into run' : 'Into runs'}</span>
      <ul>
        {names.map((name) => {
          const run = runs.find((r) => r.name === name);
          return (
            <li key={name} data-testid="import-run" data-run-name={name}>
              <span className="import-run-name" title={visibleTitle(name)}>
                <VisibleName name={name} />
              </span>
              {run && (
                <a href={formatHash({ route: { view: 'episodes' }, runIds: [run.id] })} onClick={closeImport} data-testid="import-run-open">
                  Open
                </a>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}

function Results({ report }: { report: ImportReport }) {
  const count = (status: keyof typeof STATUS_BADGE) => report.files.filter((f) => f.status === status).length;
  const imported = report.files.filter((f) => f.status === 'imported');
  const episodes = imported.reduce((a, f) => a + f.episodes, 0);
  const turns = imported.reduce((a, f) => a + f.turns, 0);
  return (
    <div className="import-results" data-testid="import-results">
      <div className="import-summary" data-testid="import-summary">
        {/* Nothing imported is the result to notice, not a success. */}
        <span className={count('imported') === 0 ? 'badge badge-warning' : 'badge badge-success'} data-testid="import-count">
          {formatCount(count('imported'))} imported
        </span>
        {count('skipped') > 0 && <span className="badge badge-unknown">{formatCount(count('skipped'))} skipped</span>}
        {count('rejected') > 0 && <span className="badge badge-failure">{formatCount(count('rejected'))} rejected</span>}
        <span className="muted">
          {plural(episodes, 'episode')} and {plural(turns, 'turn')} added
        </span>
      </div>
      <ImportedRuns report={report} />
      {report.warnings.length > 0 && (
        <section className="import-warnings" data-testid="import-warnings" aria-label="Warnings">
          <strong>{plural(report.warnings.length, 'warning')}</strong>
          <ul>
            {report.warnings.slice(0, MAX_WARNINGS_SHOWN).map((w, i) => (
              <li key={i}>{w}</li>
            ))}
          </ul>
          {report.warnings.length > MAX_WARNINGS_SHOWN && (
            <div className="faint">and {formatCount(report.warnings.length - MAX_WARNINGS_SHOWN)} more</div>
          )}
        </section>
      )}
      {report.files.length > 0 ? (
        <div className="import-table-wrap">
          <table className="import-table" data-testid="import-results-table">
            <thead>
              <tr>
                <th>File</th>
                <th>Format</th>
                <th>Status</th>
                <th className="num">Episodes</th>
                <th className="num">Turns</th>
                <th>Reason</th>
              </tr>
            </thead>
            <tbody>
              {report.files.map((f) => (
                <tr key={f.path} data-testid="import-result" data-status={f.status} data-path={f.path}>
                  <td className="import-path mono" data-col="path" title={f.path}>
                    <PathText path={f.path} />
                  </td>
                  <td data-col="format">{f.format ? <span className="format-tag">{f.format}</span> : <span className="faint">—</span>}</td>
                  <td data-col="status">
                    <span className={`badge ${STATUS_BADGE[f.status]}`}>{f.status}</span>
                  </td>
                  <td className="num" data-col="episodes">
                    {f.status === 'imported' ? formatCount(f.episodes) : '—'}
                  </td>
                  <td className="num" data-col="turns">
                    {f.status === 'imported' ? formatCount(f.turns) : '—'}
                  </td>
                  <td className="import-reason mono" data-col="reason">
                    {f.reason ?? ''}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p className="muted">None of these files is a trajectory log RouteLens reads ({FORMATS}).</p>
      )}
      {report.ignored.length > 0 && (
        <details className="import-note import-ignored" data-testid="import-ignored" open={report.ignored.length <= 5}>
          <summary className="faint">
            {plural(report.ignored.length, 'other file')} ignored, each with the reason (sidecars such as report.json are read with their
            trajectories)
          </summary>
          <ul className="import-ignored-list mono">
            {report.ignored.map((i) => (
              <li key={i.path} data-testid="import-ignored-file" data-path={i.path}>
                <span className="import-path">
                  <PathText path={i.path} />
                </span>
                <span className="faint">: {i.reason}</span>
              </li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}

function Finished({ job, refreshError }: { job: ImportJob; refreshError: string | null }) {
  return (
    <>
      {job.state === 'failed' && <ErrorNotice title="The import stopped on an internal error." message={job.error ?? 'unknown error'} />}
      {refreshError && <ErrorNotice title="Imported, but the run list could not be refreshed; reload to see the new runs." message={refreshError} />}
      {job.report && <Results report={job.report} />}
    </>
  );
}

function Footer() {
  const phase = useAppStore((s) => s.importPhase);
  const files = useAppStore((s) => s.importFiles);
  const closeImport = useAppStore((s) => s.closeImport);
  const resetImport = useAppStore((s) => s.resetImport);
  const runImport = useAppStore((s) => s.runImport);
  if (phase.kind === 'choosing') {
    const blocked = files.length === 0 || uploadProblem(files) !== null;
    return (
      <>
        <button type="button" className="btn" onClick={closeImport}>
          Cancel
        </button>
        <button type="button" className="btn btn-primary" disabled={blocked} onClick={() => void runImport()} data-testid="import-start">
          {files.length === 0 ? 'Import' : `Import ${plural(files.length, 'file')}`}
        </button>
      </>
    );
  }
  if (importBusy(phase)) {
    return (
      <button type="button" className="btn" onClick={closeImport}>
        Close
      </button>
    );
  }
  return (
    <>
      <button type="button" className="btn" onClick={() => resetImport({ keepFiles: phase.kind === 'failed' })} data-testid="import-again">
        {phase.kind === 'failed' ? 'Back' : 'Import more…'}
      </button>
      <button type="button" className="btn btn-primary" onClick={closeImport} data-testid="import-done" data-autofocus>
        Done
      </button>
    </>
  );
}

export default function ImportDialog() {
  const phase = useAppStore((s) => s.importPhase);
  const closeImport = useAppStore((s) => s.closeImport);
  return (
    <Modal title="Import logs" onClose={closeImport} testId="import-dialog" className="import-modal" footer={<Footer />} focusKey={phase.kind}>
      <div className="import-dialog-body" data-phase={phase.kind}>
        {phase.kind === 'choosing' && (
          <>
            <FilePickers />
            <ChosenFiles />
            <RunNameField />
          </>
        )}
        {(phase.kind === 'reading' || phase.kind === 'sending' || phase.kind === 'running') && <Progress phase={phase} />}
        {phase.kind === 'finished' && <Finished job={phase.job} refreshError={phase.refreshError} />}
        {phase.kind === 'failed' && <ErrorNotice title="The import failed." message={phase.message} />}
      </div>
    </Modal>
  );
}
