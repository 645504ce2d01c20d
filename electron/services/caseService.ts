/** `shareCase`: the window's "Share as HTML…" asks the core for the case's file, which the window then saves. */
import { ShareCaseRequest, type ShareCaseResult } from '../../shared/apiCase.ts';
import type { RouteLensApi } from '../../shared/api.ts';
import { gatherCase, type CaseRequest, type CaseSource } from '../export/caseData.ts';
import { caseFileName, caseHtml, readCaseViewer } from '../export/caseHtml.ts';
import { routelensVersion } from '../routelensVersion.ts';
import { InputError } from './serviceErrors.ts';

export function caseRequestOf(input: ShareCaseRequest): CaseRequest {
  const req = ShareCaseRequest.parse(input);
  const asked = [req.episode !== undefined, req.run !== undefined, req.compare !== undefined].filter(Boolean).length;
  if (asked !== 1) throw new InputError('name one episode, one run or two runs to compare');
  if (req.episode !== undefined) return { episode: req.episode };
  if (req.run !== undefined) return { run: req.run };
  return { compare: req.compare as NonNullable<typeof req.compare> };
}

export function caseServices(source: CaseSource, path: string): Pick<RouteLensApi, 'shareCase'> {
  return {
    shareCase: async (input): Promise<ShareCaseResult> => {
      const request = caseRequestOf(input);
      const viewer = readCaseViewer();
      const redact = input.redact ?? true;
      const data = await gatherCase(source, request, { redact, version: routelensVersion(), database: path });
      return { filename: caseFileName(data), html: caseHtml(data, viewer), redaction: redact ? data.about.redaction.summary : 'nothing (redaction off)' };
    },
  };
}
