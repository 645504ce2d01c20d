/**
 * A shared case (issue 37): what one self-contained HTML file carries of an episode, a run or a comparison, as the
 * API answered it, so the file's viewer (renderer/case/) feeds the app's own views from it with no core behind them.
 * The core writes it (electron/export/caseData.ts), gzipped and base64-encoded inside the page.
 */
import type { DbInfo, EpisodeDetail, EpisodeRow, ModelInfo, RunSummary } from './api.ts';
import type { AnalysisResponse } from './analysisResults.ts';
import type { CompareInput, CompareResult } from './apiCompare.ts';

export const CASE_FORMAT = 'routelens-case/1';

/** The id of the page's block that holds the data (gzipped JSON in base64). */
export const CASE_DATA_ID = 'routelens-case';

export type CaseKind = 'episode' | 'run' | 'compare';

/** A run's case carries this many sessions in full (with their subagents); the others are listed. */
export const RUN_EPISODES_IN_FULL = 20;

/** What the file says about itself: its footer. */
export interface CaseAbout {
  version: string;
  /** The database's file name (its folder is left out: it names the user's machine). */
  database: string;
  exported_at: string;
  redaction: { enabled: boolean; summary: string; counts: Record<string, number> };
  /** Texts cut to their head and tail, and the characters left out of them. */
  cut: { texts: number; chars: number };
  /** Episodes of a run listed but not carried in full. */
  episodes_left_out: number;
}

export interface CaseData {
  format: typeof CASE_FORMAT;
  kind: CaseKind;
  title: string;
  /** The episode the page opens on (an episode's case); null opens the run's or comparison's summary. */
  start: number | null;
  db_info: DbInfo;
  runs: RunSummary[];
  models: ModelInfo[];
  /** getEpisode's answers with every turn in `turns` (turns_from 0), outline kept for a long one. */
  episodes: EpisodeDetail[];
  /** A run's case: its sessions as the Episodes list gives them (those not in `episodes` are listed only). */
  rows: EpisodeRow[];
  compare: { request: CompareInput; result: CompareResult } | null;
  /** The plan-dag analysis of each episode carried (the inspector draws a plan turn's round from it). */
  plans: AnalysisResponse[];
  about: CaseAbout;
}
