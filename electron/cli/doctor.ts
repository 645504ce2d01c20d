/** `routelens doctor --db FILE`: the full integrity check and what can be recovered (issue 16). */
import { err, out, print, requireDb, type Command } from './common.ts';
import { visibleText as v } from '../../shared/displayText.ts';
import { diagnose } from '../db/doctor.ts';

export const command: Command = {
  usage: 'routelens doctor --db FILE [--json]\n  exit 0: intact; 1: damaged, altered (its schema is not as RouteLens wrote it) or not a RouteLens database. Never writes to FILE.',
  options: { db: { type: 'string' }, json: { type: 'boolean' } },
  async run(values) {
    const report = diagnose(requireDb(values, false));
    const code = report.status === 'ok' ? 0 : 1;
    if (values.json) {
      print(report);
      return code;
    }
    if (report.status === 'not_routelens') {
      err(`routelens doctor: ${v(report.problems[0] ?? report.path)}`);
      return 1;
    }
    const verdict = { ok: 'intact (integrity_check ok)', damaged: 'DAMAGED', altered: 'ALTERED: its schema is not as RouteLens wrote it' }[report.status];
    out(`${v(report.path)}: ${verdict}`);
    for (const p of report.problems.slice(0, 20)) out(`  problem: ${v(p)}`);
    if (report.problems.length > 20) out(`  … and ${report.problems.length - 20} more problems`);
    for (const t of report.tables) out(`  table ${v(t.name).padEnd(24)} ${t.error ? `unreadable (${v(t.error)})` : `${t.rows} rows`}`);
    for (const r of report.runs) out(`  run ${v(r.name)}: ${r.error ? `unreadable (${v(r.error)})` : `${r.episodes} episodes, ${r.turns} turns`}`);
    for (const line of report.recovery) out(`  recovery: ${v(line)}`);
    return code;
  },
};
