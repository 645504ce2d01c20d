/**
 * "Share as HTML…" (issue 37): asks the core for one self-contained HTML file of an episode, a run or a comparison
 * and saves it as other exports are saved (a download, in the browser and in the desktop window alike). Redaction
 * is on unless the user turns it off here, for this file.
 */
import { useState, type ReactNode } from 'react';
import type { ShareCaseRequest } from '../../shared/apiCase.ts';
import { api, errorMessage } from '../api/index.ts';
import { downloadText } from '../charts/download.ts';
import { ShareIcon } from './icons.tsx';
import { Popover } from './Popover.tsx';
import './shareCase.css';

type Saved = { status: 'idle' } | { status: 'busy' } | { status: 'saved'; filename: string; redaction: string } | { status: 'failed'; message: string };

export function ShareCaseButton({
  what,
  request,
  children,
  compact = false,
  testId = 'share-case',
}: {
  /** What the file holds, in words ("this episode and its subagents: …"). */
  what: string;
  /** Null while there is nothing to share (the panel says why through `children`). */
  request: Omit<ShareCaseRequest, 'redact'> | null;
  /** Choices of what to share, above the redaction box (the Runs view's run). */
  children?: ReactNode;
  /** In a crowded row (the inspector's): icon only on a narrow window, the words in its title. */
  compact?: boolean;
  testId?: string;
}) {
  const [redact, setRedact] = useState(true);
  const [saved, setSaved] = useState<Saved>({ status: 'idle' });

  const save = async () => {
    if (!request) return;
    setSaved({ status: 'busy' });
    try {
      const file = await api.shareCase({ ...request, redact });
      downloadText(file.filename, file.html, 'text/html');
      setSaved({ status: 'saved', filename: file.filename, redaction: file.redaction });
    } catch (err) {
      setSaved({ status: 'failed', message: errorMessage(err) });
    }
  };

  return (
    <Popover
      testId={testId}
      button={
        <span className={compact ? 'share-case-label is-compact' : 'share-case-label'}>
          <ShareIcon />
          <span className="share-case-words">Share as HTML…</span>
        </span>
      }
      buttonTitle="Share as HTML: save one file that opens in any browser, offline"
      align="end"
    >
      {() => (
        <div className="share-case" aria-label="Share as HTML">
          <p className="share-case-what">One HTML file of {what}. It opens in any browser, offline, and loads nothing from anywhere.</p>
          {children}
          <label className="share-case-redact">
            <input type="checkbox" checked={redact} onChange={(e) => setRedact(e.target.checked)} data-testid={`${testId}-redact`} />
            <span>
              Redact secrets
              <span className="faint"> API keys, tokens, private keys, env secrets, bearer headers and home-folder user names become placeholders</span>
            </span>
          </label>
          {!redact && (
            <p className="share-case-warning" role="alert">
              The file will hold the log text as it is, secrets included.
            </p>
          )}
          <div className="share-case-actions">
            <button type="button" className="btn btn-primary" disabled={!request || saved.status === 'busy'} onClick={() => void save()} data-testid={`${testId}-save`}>
              Save HTML
            </button>
            {saved.status === 'busy' && <span className="spinner" aria-label="Writing the file" />}
          </div>
          {saved.status === 'saved' && (
            <p className="share-case-done" data-testid={`${testId}-done`}>
              Saved {saved.filename} · {saved.redaction}
            </p>
          )}
          {saved.status === 'failed' && (
            <p className="share-case-problem" role="alert">
              {saved.message}
            </p>
          )}
        </div>
      )}
    </Popover>
  );
}
