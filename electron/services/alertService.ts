/**
 * The alert rules behind the API (shared/apiAlerts.ts): read on the API's read-only connection, changed on a
 * writer connection in the database's write queue, like every other write the window starts.
 */
import type { RouteLensApi } from '../../shared/api.ts';
import { listAlerts } from '../alerts/alertLog.ts';
import { AlertRuleError, listAlertRules, removeAlertRule, saveAlertRule } from '../alerts/alertRuleStore.ts';
import type { Db } from '../db/dbHandle.ts';
import { InputError, NotFoundError } from './serviceErrors.ts';
import { writerTurn } from './writerTurn.ts';
import type { WriteQueue } from './writeQueue.ts';

type AlertsApi = Pick<RouteLensApi, 'alertRules' | 'setAlertRule' | 'removeAlertRule' | 'alerts'>;

export function alertServices(db: Db, dbPath: string, writes: WriteQueue): AlertsApi {
  const write = writerTurn(db, dbPath, writes);
  return {
    alertRules: async () => listAlertRules(db),
    setAlertRule: async ({ rule, enabled }) => {
      try {
        await write('alert rule', (writer) => saveAlertRule(writer, rule, enabled));
      } catch (e) {
        if (e instanceof AlertRuleError) throw new InputError(e.message);
        throw e;
      }
      return listAlertRules(db);
    },
    removeAlertRule: async ({ rule }) => {
      if (!(await write('alert rule', (writer) => removeAlertRule(writer, rule)))) throw new NotFoundError(`no alert rule "${rule}"`);
      return listAlertRules(db);
    },
    alerts: async ({ sinceId }) => listAlerts(db, { sinceId }),
  };
}
