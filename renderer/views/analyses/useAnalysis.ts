/**
 * An analysis's answer for the page: asked of the core asynchronously (the window stays responsive), memoised
 * per request (analysisRequest.ts) for the life of the database's contents (`dataVersion`), with the last
 * answer kept on screen, marked stale, while a changed request is computed.
 */
import { useEffect, useState } from 'react';
import type { AnalysisRequest, AnalysisResponse } from '../../../shared/analysisResults.ts';
import { api, errorMessage } from '../../api/index.ts';
import { useAppStore } from '../../store/index.ts';
import { requestKey, ResponseMemo } from './analysisRequest.ts';

let memo = { version: -1, answers: new ResponseMemo((request) => api.runAnalysis(request)) };

function answersFor(version: number): ResponseMemo {
  if (memo.version !== version) memo = { version, answers: new ResponseMemo((request) => api.runAnalysis(request)) };
  return memo.answers;
}

export interface AnalysisState {
  /** The answer to the current request, or (stale) to the previous one while this one is computed. */
  response: AnalysisResponse | null;
  error: string | null;
  loading: boolean;
  stale: boolean;
  /** When the current request was sent (for the "computing… 2 s" line). */
  since: number;
}

export function useAnalysis(request: AnalysisRequest | null): AnalysisState {
  const dataVersion = useAppStore((s) => s.dataVersion);
  const key = request ? requestKey(request) : null;
  const [shown, setShown] = useState<{ key: string; version: number; response: AnalysisResponse | null; error: string | null } | null>(null);
  const [since, setSince] = useState(() => Date.now());

  useEffect(() => {
    if (!request || key === null) return;
    const answers = answersFor(dataVersion);
    if (answers.peek(request)) return;
    let live = true;
    setSince(Date.now());
    answers.get(request).then(
      (response) => live && setShown({ key, version: dataVersion, response, error: null }),
      (err: unknown) => live && setShown({ key, version: dataVersion, response: null, error: errorMessage(err) }),
    );
    return () => {
      live = false;
    };
    // `key` stands for `request` (a new object on every render).
  }, [key, dataVersion]);

  if (!request) return { response: null, error: null, loading: false, stale: false, since };
  const memoised = answersFor(dataVersion).peek(request);
  if (memoised) return { response: memoised, error: null, loading: false, stale: false, since };
  const current = shown && shown.key === key && shown.version === dataVersion ? shown : null;
  if (current) return { response: current.response, error: current.error, loading: false, stale: false, since };
  return { response: shown?.response ?? null, error: null, loading: true, stale: shown?.response != null, since };
}
