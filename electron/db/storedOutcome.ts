/**
 * An episode's stored outcome explanation (episode_text.outcome, the store's episodes.outcome) read back for the API.
 * The text is RouteLens's own JSON, but a database can come from anywhere: what does not parse as an explanation is
 * read as not recorded (null), never as a made-up one.
 */
import { OutcomeExplanation } from '../../shared/canonical.ts';

export function storedOutcome(text: string | null | undefined): OutcomeExplanation | null {
  if (text == null) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = OutcomeExplanation.safeParse(value);
  return parsed.success ? parsed.data : null;
}
