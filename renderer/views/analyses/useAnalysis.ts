/**
 * An analysis's answer for the page: asked of the core asynchronously (the window stays responsive), memoised
 * per request (analysisRequest.ts) for the life of the database's contents (`dataVersion`), with the last
 * answer kept on screen, marked stale, while a changed request is computed.
 * Requests that follow each other quickly are asked once they settle (changeSettler.ts).
 */
import { useEffect, useState } from 'react';
import type { AnalysisRequest, AnalysisResponse } from '../../../shared/analysisResults.ts';
import { api, errorMessage } from '../../api/index.ts';
import { useAppStore } from '../../store/index.ts';
import { requestKey, ResponseMemo } from './analysisRequest.ts';
import { ChangeSettler } from './changeSettler.ts';

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
  const [pace] = useState(() => new ChangeSettler());

  useEffect(() => {
    if (!request || key === null) return;
    const answers = answersFor(dataVersion);
    if (answers.peek(request)) {
      pace.noteChange();
      return;
    }
    let live = true;
    setSince(Date.now());
    const ask = () => {
      answers.get(request).then(
        (response) => live && setShown({ key, version: dataVersion, response, error: null }),
        (err: unknown) => live && setShown({ key, version: dataVersion, response: null, error: errorMessage(err) }),
      );
    };
    // Already on its way (the effect run again for the same request): waiting would only delay it.
    if (answers.asked(request)) {
      ask();
      return () => {
        live = false;
      };
    }
    const cancel = pace.schedule(ask);
    return () => {
      live = false;
      cancel();
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
