/**
 * The page of a shared case (issue 37): reads the case the file carries (gzipped JSON in base64, inflated here
 * with DecompressionStream: no request, no library) and shows it with the app's own views.
 */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { CASE_DATA_ID, CASE_FORMAT, type CaseData } from '../../shared/caseFile.ts';
import { useAppStore } from '../store/index.ts';
import { applyTheme } from '../theme/theme.ts';
import { installCase } from './caseApi.ts';
import { CaseApp, startHash } from './CaseApp.tsx';
import '../styles/theme.css';
import '../styles/base.css';
import '../styles/app.css';
import './case.css';

async function readCase(): Promise<CaseData> {
  const text = document.getElementById(CASE_DATA_ID)?.textContent?.trim();
  if (!text) throw new Error('this file holds no case');
  const bytes = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  const json = await new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'))).text();
  const data = JSON.parse(json) as CaseData;
  if (data.format !== CASE_FORMAT) throw new Error(`this file holds a case of another format (${String(data.format)}); open it with the RouteLens that wrote it`);
  return data;
}

const root = document.getElementById('root');
if (!root) throw new Error('the case page has no #root element');
applyTheme(useAppStore.getState().theme);
readCase().then(
  (data) => {
    installCase(data);
    if (window.location.hash.length <= 1) window.history.replaceState(null, '', startHash(data));
    createRoot(root).render(
      <StrictMode>
        <CaseApp data={data} />
      </StrictMode>,
    );
  },
  (err: unknown) => {
    root.textContent = `This RouteLens case could not be read: ${err instanceof Error ? err.message : String(err)}`;
    root.className = 'case-broken';
  },
);
