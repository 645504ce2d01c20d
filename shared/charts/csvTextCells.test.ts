import { describe, expect, it } from 'vitest';
import { Redactor } from '../redact.ts';
import { mapCsvTextCells, toCsv } from './csv.ts';

describe('mapCsvTextCells', () => {
  const csv = toCsv(
    ['run', 'episode', 'n', 'cost_usd', 'ok', 'note'],
    [
      ['eval /home/alice/x', 'ep, "quoted" /Users/bob', 3, -0.25, true, null],
      ['=cmd|ACME-42', '12', 1e-9, 0, false, 'ACME-7 and /home/carol'],
    ],
  );

  it('maps text cells only: the header, numbers, booleans and empty cells stay', () => {
    const seen: string[] = [];
    expect(mapCsvTextCells(csv, (s) => (seen.push(s), s))).toBe(csv);
    expect(seen).toEqual(['eval /home/alice/x', 'ep, "quoted" /Users/bob', "'=cmd|ACME-42", 'ACME-7 and /home/carol']);
  });

  it('redacts inside quoted cells and keeps the document well formed', () => {
    const r = new Redactor({ enabled: true, extra: [/ACME-[0-9]+/] });
    const out = mapCsvTextCells(csv, (s) => r.text(s));
    expect(out).toBe(
      'run,episode,n,cost_usd,ok,note\r\n' +
        'eval /home/[user]/x,"ep, ""quoted"" /Users/[user]",3,-0.25,true,\r\n' +
        "'=cmd|[redacted: custom pattern],12,1e-9,0,false,[redacted: custom pattern] and /home/[user]\r\n",
    );
    expect(r.summary()).toBe('redacted: 3 home-folder user names, 2 custom pattern matches');
  });

  it('ends on malformed input instead of looping', () => {
    expect(mapCsvTextCells('a,b\r\n"open, never closed', (s) => s.toUpperCase())).toBe('a,b\r\n"OPEN, NEVER CLOSED"');
    expect(mapCsvTextCells('a\r\n"x"y,z\r', (s) => s)).toBe('a\r\n"x"y,"z\r"');
  });
});
