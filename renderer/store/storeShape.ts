/**
 * The UI store's shape: each slice's state and actions, one section per slice, and AppStore, their union. The
 * slices' behaviour lives in their modules (sessionSlice.ts, …), which are typed by AppStore; the shape sits
 * here so they can be without this module importing them back.
 */
import type { AnalysisId } from '../../shared/analysisResults.ts';
import type { DbInfo, EpisodeSortColumn, ImportJob, ModelInfo, RunSummary } from '../../shared/api.ts';
import type { EstimatorList, SetEstimatorInUseInput } from '../../shared/apiEstimator.ts';
import type { Route } from '../routing/route.ts';
import type { InspectorLayoutPrefs } from '../theme/prefs.ts';
import type { Theme } from '../theme/theme.ts';
import type { ReadProgress } from '../views/import/encodeUpload.ts';
import type { Picked, PickedFile } from '../views/import/pickedFiles.ts';

// What the open database holds at the top level (sessionSlice.ts).

export type SessionStatus = 'loading' | 'ready' | 'error';

export interface SessionSlice {
  status: SessionStatus;
  loadError: string | null;
  dbInfo: DbInfo | null;
  runs: RunSummary[];
  models: ModelInfo[];
  /** model name → color_index from listModels */
  modelColorIndex: Record<string, number>;
  /** Bumped when the database's contents change under the UI (an import), so views re-query what they show. */
  dataVersion: number;
  loadSession(): Promise<void>;
  /** Re-reads info, runs and models without leaving the current view (after an import). */
  refreshSession(): Promise<void>;
  /**
   * Asks the core whether a write committed since the session was read (`dbInfo.data_version`: an import from
   * the CLI, a score job) and refreshes if so. Cheap; App polls it (DATA_POLL_MS). Resolves whether it refreshed.
   */
  checkForChanges(): Promise<boolean>;
}

// Where the window is (locationSlice.ts).

export interface LocationSlice {
  route: Route;
  runIds: number[];
  /** The episode last opened in the inspector, for the rail's link back to it. */
  lastEpisode: { episodeId: number; turn: number | null } | null;
  /** The view the user was on before the current one (null at start-up): the inspector steps through the Episodes list only when opened from it. */
  cameFrom: Route['view'] | null;
  navigate(route: Route, options?: { replace?: boolean }): void;
  setRunIds(runIds: number[]): void;
  /** Adopt what the URL says (start-up, Back/Forward, a hand-edited fragment). */
  syncFromHash(hash: string): void;
}

// The Episodes view's filters and sort (episodeFiltersSlice.ts).

export type OutcomeFilter = 'any' | 'success' | 'failure' | 'unknown';

export interface EpisodeFilters {
  models: string[];
  outcome: OutcomeFilter;
  /** What the user typed; the view debounces it before querying. */
  search: string;
  sort: EpisodeSortColumn;
  desc: boolean;
}

/**
 * Where the list came from when a click on a figure mark opened it ("gpt-5 on python turns"), with the
 * selection that click made. The Episodes view names it only while runs and filters still say exactly that,
 * so a label never describes a list the user has since changed.
 */
export interface EpisodesOrigin {
  label: string;
  runIds: number[];
  models: string[];
  outcome: OutcomeFilter;
}

export interface EpisodesFromFigure {
  label: string;
  /** Omitted: keep the top bar's run selection. */
  runIds?: number[];
  models?: string[];
  outcome?: Exclude<OutcomeFilter, 'any'>;
}

export interface EpisodeFiltersSlice {
  episodeFilters: EpisodeFilters;
  episodesOrigin: EpisodesOrigin | null;
  setEpisodeFilters(patch: Partial<EpisodeFilters>): void;
  resetEpisodeFilters(): void;
  /** Opens the Episodes view filtered to what a figure mark counts (clears any search, keeps the sort). */
  openEpisodesFromFigure(target: EpisodesFromFigure): void;
}

// Theme and inspector layout, kept across sessions (prefsSlice.ts).

export interface PrefsSlice {
  theme: Theme;
  setTheme(theme: Theme): void;
  toggleTheme(): void;
  /** The inspector's layout as the user chose it; parts not chosen follow the window's size. */
  inspectorLayout: InspectorLayoutPrefs;
  setInspectorLayout(patch: InspectorLayoutPrefs): void;
}

// Importing logs from the window (importSlice.ts).

export type ImportPhase =
  | { kind: 'choosing' }
  | ({ kind: 'reading' } & ReadProgress)
  | { kind: 'sending'; bytes: number }
  | { kind: 'running'; job: ImportJob }
  /** The core finished (the job's state says whether it stopped on an internal error). */
  | { kind: 'finished'; job: ImportJob; refreshError: string | null }
  /** The files could not be read or sent, or the core stopped answering. */
  | { kind: 'failed'; message: string };

export interface ImportSlice {
  importOpen: boolean;
  importFiles: PickedFile[];
  /** Hidden files left out of what was picked (shown, so a user is not surprised by a missing .file). */
  importHidden: number;
  /** Dropped items the browser would not hand over. */
  importUnreadable: string[];
  importRunName: string;
  importPhase: ImportPhase;
  /**
   * The runs the last import from this window put episodes into, first seen first (names): the Runs view lists them
   * first, marked new, with a link to their episodes.
   */
  importedRuns: string[];
  /** Opens the dialog, with these files added to the list when given (a drop, say). */
  openImport(picked?: Picked): void;
  addImportFiles(picked: Picked): void;
  removeImportFile(path: string): void;
  setImportRunName(name: string): void;
  /** Back to choosing files, forgetting the last import's results (and its files, unless `keepFiles`). */
  resetImport(options?: { keepFiles?: boolean }): void;
  closeImport(): void;
  runImport(): Promise<void>;
}

// The Analyses pages' controls (analysesSlice.ts).

/** An episode as analyses name it: the log's id, and its run (ids repeat across runs). */
export interface EpisodeRef {
  ext_id: string;
  run: string;
}

export interface AnalysisParams {
  minN?: number;
  reference?: string;
  /** pareto: linear or logarithmic cost axis. */
  costAxis?: 'linear' | 'log';
  rho?: Record<string, number>;
  episode?: EpisodeRef;
  /** calibration, embeddings: the database's estimator in use, filled in from the store (no control of its own). */
  estimator?: number;
  /** calibration: ŝ bins. */
  bins?: number;
  /** embeddings: colour of the history points, and how many to map. */
  color?: 'model' | 'outcome';
  sample?: number;
}

export interface AnalysesSlice {
  analysisParams: Partial<Record<AnalysisId, AnalysisParams>>;
  setAnalysisParams(id: AnalysisId, patch: AnalysisParams): void;
  /**
   * The runs every figure draws when more are selected than a figure can (the request's `draw`, by name); empty:
   * the core's default (shared/drawnRuns.ts). One choice for all figures, so a run is drawn, and coloured, alike in each.
   */
  drawnRuns: string[];
  setDrawnRuns(runs: string[]): void;
}

// The database's estimators and the one in use (estimatorSlice.ts).

export interface EstimatorSlice {
  estimators: EstimatorList | null;
  estimatorsError: string | null;
  /** The state `estimators` was listed for (database version and finished jobs): a new one lists again. */
  estimatorsFor: string | null;
  loadEstimators(forKey: string): Promise<void>;
  /** Makes an estimator (or the shipped default) the one in use for this database. */
  chooseEstimator(pick: SetEstimatorInUseInput): Promise<void>;
  estimatorChoiceError: string | null;
}

/** The whole UI store: one typed slice per concern, combined in index.ts. */
export type AppStore = SessionSlice & LocationSlice & EpisodeFiltersSlice & PrefsSlice & ImportSlice & AnalysesSlice & EstimatorSlice;
