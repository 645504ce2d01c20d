import type { AnalysesSlice } from './analysesSlice.ts';
import type { EpisodeFiltersSlice } from './episodeFiltersSlice.ts';
import type { EstimatorSlice } from './estimatorSlice.ts';
import type { ImportSlice } from './importSlice.ts';
import type { LocationSlice } from './locationSlice.ts';
import type { PrefsSlice } from './prefsSlice.ts';
import type { SessionSlice } from './sessionSlice.ts';

/** The whole UI store: one typed slice per concern, combined in index.ts. */
export type AppStore = SessionSlice & LocationSlice & EpisodeFiltersSlice & PrefsSlice & ImportSlice & AnalysesSlice & EstimatorSlice;
