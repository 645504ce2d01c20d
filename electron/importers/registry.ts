/** Importers in priority order (DESIGN §4): the first whose `detect` accepts a file reads it. */
import { aiderImporter } from './aider.ts';
import { atifImporter } from './atif.ts';
import { canonicalImporter } from './canonical.ts';
import { claudeCodeImporter } from './claudeCode.ts';
import { clineImporter } from './cline.ts';
import { codexCliImporter } from './codexCli.ts';
import { copilotCliImporter } from './copilotCli.ts';
import { crushImporter } from './crush.ts';
import { geminiCliImporter } from './geminiCli.ts';
import { inspectImporter } from './inspect.ts';
import { miniSweAgentImporter } from './miniSweAgent.ts';
import { openCodeImporter } from './opencode.ts';
import { openHandsImporter } from './openHands.ts';
import { otelImporter } from './otel.ts';
import { sweAgentImporter } from './sweAgent.ts';
import type { Importer } from './types.ts';
import { unoImporter } from './uno.ts';

export const IMPORTERS: readonly Importer[] = [
  canonicalImporter,
  claudeCodeImporter,
  geminiCliImporter,
  codexCliImporter,
  copilotCliImporter,
  crushImporter,
  // Before mini-swe-agent: a Cline api_conversation_history.json is also a bare array of chat messages.
  clineImporter,
  // Before mini-swe-agent: an export is also `{info, messages}`, which mini-swe-agent's trajectories share.
  openCodeImporter,
  miniSweAgentImporter,
  sweAgentImporter,
  inspectImporter,
  otelImporter,
  unoImporter,
  openHandsImporter,
  atifImporter,
  aiderImporter,
];

export function importerByFormat(format: string): Importer | undefined {
  return IMPORTERS.find((i) => i.format === format);
}
