/**
 * The log formats RouteLens reads, as users know them, for the import dialog, the drop overlay and help text. The
 * importers' registry (electron/importers/registry.ts) is the truth of what is read; a test holds this list to it, so a
 * new importer cannot land without its name here.
 */
export const LOG_FORMAT_NAMES: Readonly<Record<string, string>> = {
  canonical: 'canonical JSONL (routelens/v1)',
  'claude-code': 'Claude Code sessions',
  'gemini-cli': 'Gemini CLI',
  codex: 'Codex CLI',
  'copilot-cli': 'Copilot CLI',
  crush: 'Crush databases (crush.db)',
  cline: 'Cline / Roo Code / Kilo Code task folders',
  opencode: 'OpenCode sessions',
  'mini-swe-agent': 'mini-swe-agent and MTRouter trajectories',
  'swe-agent': 'SWE-agent .traj',
  inspect: 'Inspect AI logs (.eval, .json)',
  otel: 'OpenTelemetry GenAI spans',
  uno: 'Uno orchestration transcripts',
  openhands: 'OpenHands',
  atif: 'ATIF trajectories',
  aider: 'Aider chat histories',
};

/** Every format in one sentence: "canonical JSONL (routelens/v1), Claude Code sessions, … and Aider chat histories". */
export function logFormatList(): string {
  const names = Object.values(LOG_FORMAT_NAMES);
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}
