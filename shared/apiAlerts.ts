/**
 * The alert rules part of the API contract (issue 36 item 5): the rules the window's editor lists and changes,
 * and the alerts they fired. A rule is checked with shared/alertRules.ts on both sides: the editor as it is
 * typed, the core again before it saves (a wrong rule is an 'input' error carrying the parser's message).
 */
import { z } from 'zod';

const id = z.number().int().nonnegative();
/** Longer than any rule the parser takes (200), so the parser, not the schema, says what is wrong. */
const ruleText = z.string().max(1000);

export const AlertRuleInfo = z.object({
  /** In its canonical spelling (formatRule). */
  rule: z.string(),
  enabled: z.boolean(),
  created_at: z.string(),
  /** Why a stored rule does not parse (a database edited elsewhere); null for every rule saved through RouteLens. */
  error: z.string().nullable(),
});
export type AlertRuleInfo = z.infer<typeof AlertRuleInfo>;

/** One alert fired: keyed by run and episode names (a re-import keeps it); episode_id is where they lead now, if anywhere. */
export const AlertRecord = z.object({
  id,
  run: z.string(),
  episode: z.string(),
  episode_id: id.nullable(),
  rule: z.string(),
  message: z.string(),
  fired_at: z.string(),
});
export type AlertRecord = z.infer<typeof AlertRecord>;

export const alertsContract = {
  /** Every rule, oldest first. A ClickHouse store has none. */
  alertRules: { input: z.object({}), output: z.array(AlertRuleInfo) },
  /** Adds the rule or sets whether it is enabled; answers the rules after. */
  setAlertRule: { input: z.object({ rule: ruleText, enabled: z.boolean().default(true) }), output: z.array(AlertRuleInfo) },
  /** Removes the rule (the alerts it fired stay); answers the rules after. Not found when there is no such rule. */
  removeAlertRule: { input: z.object({ rule: ruleText }), output: z.array(AlertRuleInfo) },
  /** Alerts after `sinceId`, oldest first (at most 500); without it the latest 100. A ClickHouse store has none. */
  alerts: { input: z.object({ sinceId: id.optional() }), output: z.array(AlertRecord) },
} as const;
