// Types for scripts/electronBinary.mjs (plain JS so `npm start` runs without a TypeScript loader).
export interface ElectronBinaryOptions {
  /** Project root holding node_modules/electron; defaults to this repository. */
  root?: string;
  env?: Record<string, string | undefined>;
}
/** The Electron executable's absolute path, or null when it is not installed. */
export function electronBinaryPath(options?: ElectronBinaryOptions): string | null;
/** Why no Electron binary can run here, or null when one is installed. */
export function electronBinaryProblem(options?: ElectronBinaryOptions): string | null;
