/**
 * Export of one figure: SVG, PNG at 2× or at a chosen DPI, PDF, or its data as CSV, the same menu for every
 * figure. Who makes the file is the caller's `save`: for an analysis the core draws it from the same layout
 * at the width shown (analysisSaver → exportFigure), for Compare and the policy lab from what the window drew.
 * Either way the file carries a caption (title, runs, date) and is named after them. "Redact secrets" passes the
 * CSV's text cells (run, model, episode and task names) through shared/redact.ts before it is saved, as the CLI's
 * --redact-secrets does; off by default, like the CLI's, for data that is mostly numbers. The menu then stays open
 * on a line saying what was redacted.
 */
import { useState } from 'react';
import type { AnalysisRequest } from '../../../shared/analysisResults.ts';
import type { ExportFigureResult, FigureFormat } from '../../../shared/apiAnalysis.ts';
import { mapCsvTextCells } from '../../../shared/charts/csv.ts';
import type { ThemeName } from '../../../shared/charts/theme.ts';
import { Redactor } from '../../../shared/redact.ts';
import { api, errorMessage } from '../../api/index.ts';
import { base64Bytes, downloadBase64, downloadText } from '../../charts/download.ts';
import { Popover } from '../../components/Popover.tsx';

type Format = FigureFormat;

/** What the menu asks for: a format, and for PNG a scale (2×) or a print resolution. */
export interface ExportChoice {
  format: FigureFormat;
  scale?: number;
  dpi?: number;
  /** A CSV with its text cells redacted. */
  redact?: boolean;
}

/** What saving said: for a redacted CSV, what was redacted (one line); else nothing. */
export type SaveOutcome = { redaction: string } | undefined;

interface Choice {
  key: string;
  label: string;
  detail: string;
  format: Format;
  scale?: number;
  dpi?: boolean;
}

const CHOICES: Choice[] = [
  { key: 'svg', label: 'SVG', detail: 'vector, for the web and editing', format: 'svg' },
  { key: 'png2x', label: 'PNG 2×', detail: 'twice the size on screen', format: 'png', scale: 2 },
  { key: 'pngdpi', label: 'PNG at', detail: 'dpi, for print', format: 'png', dpi: true },
  { key: 'pdf', label: 'PDF', detail: 'vector, for papers', format: 'pdf' },
  { key: 'csv', label: 'CSV', detail: 'the data behind the figure', format: 'csv' },
];

const DPI_CHOICES = [150, 300, 600];

/** What the core needs besides the figure to draw its file: the choice, at the width and theme shown. */
export interface DrawnFileOptions {
  format: FigureFormat;
  theme: ThemeName;
  width: number;
  scale?: number;
  dpi?: number;
}

/** A figure's files drawn by the core (`draw` asks for one), at the width shown, downloaded as it names them. */
export function coreSaver(draw: (options: DrawnFileOptions) => Promise<ExportFigureResult>, width: number, theme: ThemeName): (choice: ExportChoice) => Promise<SaveOutcome> {
  return async (choice) => {
    const file = await draw({
      format: choice.format,
      theme,
      width: Math.max(320, Math.round(width)),
      ...(choice.scale ? { scale: choice.scale } : {}),
      ...(choice.dpi ? { dpi: choice.dpi } : {}),
    });
    if (choice.redact === true && choice.format === 'csv') {
      const redactor = new Redactor({ enabled: true, extra: [] });
      const csv = new TextDecoder().decode(base64Bytes(file.data_base64));
      downloadText(file.filename, mapCsvTextCells(csv, (text) => redactor.text(text)), file.mime);
      return { redaction: redactor.summary() };
    }
    downloadBase64(file.filename, file.mime, file.data_base64);
    return undefined;
  };
}

/** An analysis figure's files, drawn by the core at the width shown. */
export function analysisSaver(request: AnalysisRequest, width: number, theme: ThemeName): (choice: ExportChoice) => Promise<SaveOutcome> {
  return coreSaver((options) => api.exportFigure({ request, ...options }), width, theme);
}

export function ExportMenu({ save, testId = 'export-menu' }: { save(choice: ExportChoice): Promise<SaveOutcome>; testId?: string }) {
  const [dpi, setDpi] = useState(300);
  const [redact, setRedact] = useState(false);
  const [busy, setBusy] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [redacted, setRedacted] = useState<string | null>(null);

  const run = async (choice: Choice, close: () => void) => {
    setBusy(choice.key);
    setProblem(null);
    setRedacted(null);
    try {
      const outcome = await save({
        format: choice.format,
        ...(choice.scale ? { scale: choice.scale } : {}),
        ...(choice.dpi ? { dpi } : {}),
        ...(choice.format === 'csv' && redact ? { redact: true } : {}),
      });
      if (outcome !== undefined) setRedacted(outcome.redaction);
      else close();
    } catch (err) {
      setProblem(errorMessage(err));
    } finally {
      setBusy(null);
    }
  };

  return (
    <Popover testId={testId} button={<span>Export</span>} align="end">
      {(close) => (
        <div className="export-menu" role="menu" aria-label="Export this figure">
          {CHOICES.map((choice) => (
            <div key={choice.key} className="export-row">
              <button
                type="button"
                role="menuitem"
                className="btn btn-ghost export-choice"
                disabled={busy !== null}
                onClick={() => void run(choice, close)}
                data-testid={`export-${choice.key}`}
              >
                <span className="export-label">{choice.label}</span>
                {choice.dpi ? null : <span className="faint">{choice.detail}</span>}
                {busy === choice.key && <span className="spinner" aria-label="Exporting" />}
              </button>
              {choice.dpi && (
                <>
                  <select aria-label="PNG resolution (dots per inch)" value={dpi} onChange={(e) => setDpi(Number(e.target.value))} data-testid="export-dpi">
                    {DPI_CHOICES.map((d) => (
                      <option key={d} value={d}>
                        {d}
                      </option>
                    ))}
                  </select>
                  <span className="faint">{choice.detail}</span>
                </>
              )}
            </div>
          ))}
          <label className="export-redact" title="API keys and tokens, private keys, env-dump secrets, bearer headers and home-folder user names in the CSV's text cells become placeholders">
            <input type="checkbox" checked={redact} onChange={(e) => setRedact(e.target.checked)} data-testid="export-redact" />
            <span>Redact secrets</span>
            <span className="faint">in the CSV's names</span>
          </label>
          {redacted && (
            <div className="export-redacted" role="status" data-testid="export-redacted">
              CSV saved; {redacted}
            </div>
          )}
          {problem && (
            <div className="export-problem" role="alert">
              {problem}
            </div>
          )}
        </div>
      )}
    </Popover>
  );
}
