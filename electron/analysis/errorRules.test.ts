// The shipped rule sets against the MTRouter authors' ErrorDetector (error_detector.py + error_rules.yaml v2.0,
// commit 255267285c33): their strings, case-sensitive, and their hierarchy (a matching child drops its parent).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../testing/tmp.ts';
import { loadErrorRules } from './errorRules.ts';

const rules = loadErrorRules();
const hle = rules.forTaskType('hle');
const sw = rules.forTaskType('scienceworld');
const swe = rules.forTaskType('swe');
const tempDir = useTempDir();

/** Every rule of the authors' HLE section with each of its strings, in their order: [rule, severity, string]. */
const AUTHORS_HLE: [string, string, string][] = [
  ['format_error', 'medium', 'please use the correct format'], ['format_error', 'medium', 'Please use the correct format'],
  ['tool_invalid_args', 'medium', 'Invalid arguments for'], ['tool_invalid_args', 'medium', 'Missing required parameter'],
  ['tool_parse_error', 'medium', 'Could not parse tool call'], ['tool_parse_error', 'medium', 'Failed to parse'],
  ['tool_unknown', 'high', "Unknown tool '"],
  ['python_traceback', 'high', 'Traceback (most recent call last)'],
  ['python_name_error', 'high', 'NameError:'], ['python_syntax_error', 'high', 'SyntaxError:'],
  ['python_indentation_error', 'high', 'IndentationError:'], ['python_type_error', 'high', 'TypeError:'],
  ['python_value_error', 'medium', 'ValueError:'], ['python_index_error', 'medium', 'IndexError:'],
  ['python_key_error', 'medium', 'KeyError:'], ['python_attribute_error', 'medium', 'AttributeError:'],
  ['python_import_error', 'medium', 'ImportError:'], ['python_import_error', 'medium', 'ModuleNotFoundError:'],
  ['python_zero_division', 'medium', 'ZeroDivisionError:'],
  ['python_timeout', 'high', 'Execution timed out'],
  ['search_no_results', 'high', 'No results found'], ['search_no_results', 'high', 'no results found'],
  ['search_http_error', 'low', 'HTTPSConnectionPool'], ['search_http_error', 'low', 'HTTPConnectionPool'],
  ['search_rate_limit', 'low', 'rate limit'], ['search_rate_limit', 'low', 'Rate limit'], ['search_rate_limit', 'low', 'quota exceeded'],
  ['browse_403', 'low', 'HTTP 403'], ['browse_403', 'low', 'status code 403'], ['browse_403', 'low', 'Error 403'],
  ['browse_404', 'low', 'HTTP 404'], ['browse_404', 'low', 'status code 404'], ['browse_404', 'low', 'Error 404'], ['browse_404', 'low', '404 Not Found'],
  ['browse_access_denied', 'low', 'Access Denied'], ['browse_access_denied', 'low', 'access denied'], ['browse_access_denied', 'low', 'Forbidden'],
  ['browse_paywall', 'low', 'paywall'], ['browse_paywall', 'low', 'subscription required'], ['browse_paywall', 'low', 'login required'],
  ['browse_timeout', 'low', 'timed out'], ['browse_timeout', 'low', 'Timed out'],
];

describe('HLE rules: the authors\' strings and hierarchy', () => {
  it('every string of the authors\' table fires its rule with its severity', () => {
    const misses = AUTHORS_HLE.filter(([rule, severity, text]) =>
      !hle.detect(`<tool_response>\n${text}\n</tool_response>`).some((e) => e.type === rule && e.severity === severity));
    expect(misses).toEqual([]);
  });

  it('strings that are not the authors\' match nothing', () => {
    for (const text of ['No tool call found', 'TimeoutError', 'ConnectionError', 'Too Many Requests', 'subscribe to continue', 'Unknown tool foo']) {
      expect(hle.detect(text), text).toEqual([]);
    }
  });

  it('Traceback + ValueError is one medium python_value_error, not a high python_traceback', () => {
    const obs = 'Traceback (most recent call last):\n  File "<string>", line 3, in <module>\nValueError: math domain error';
    expect(hle.detect(obs)).toEqual([{ type: 'python_value_error', severity: 'medium' }]);
  });

  it('a bare traceback stays python_traceback', () => {
    expect(hle.detect('Traceback (most recent call last):\n  File "x.py", line 1\nRuntimeError: boom')).toEqual([{ type: 'python_traceback', severity: 'high' }]);
  });

  it('"HTTP 403" with "Forbidden" keeps only the child browse_access_denied; "HTTP 403" alone is browse_403', () => {
    expect(hle.detect('Failed to fetch https://example.org: HTTP 403 Forbidden')).toEqual([{ type: 'browse_access_denied', severity: 'low' }]);
    expect(hle.detect('Failed to fetch https://example.org: HTTP 403')).toEqual([{ type: 'browse_403', severity: 'low' }]);
  });

  it('is case-sensitive: other spellings match nothing', () => {
    for (const text of ['forbidden', 'ACCESS DENIED', 'TIMED OUT', 'Format error', 'traceback (most recent call last)', 'valueerror: x', 'http 403']) {
      expect(hle.detect(text), text).toEqual([]);
    }
    expect(hle.detect('Request Timed out')).toEqual([{ type: 'browse_timeout', severity: 'low' }]);
  });

  it('rules without a parent relation are all reported, in the file\'s order (python_timeout also says "timed out")', () => {
    expect(hle.detect('Execution timed out after 30 seconds')).toEqual([
      { type: 'python_timeout', severity: 'high' },
      { type: 'browse_timeout', severity: 'low' },
    ]);
  });
});

describe('ScienceWorld rule', () => {
  it('only the unparseable action counts, exactly as written', () => {
    expect(sw.detect('No known action matches that input.')).toEqual([{ type: 'no_known_action', severity: 'high' }]);
    expect(sw.detect('no known action matches that input.')).toEqual([]);
    expect(sw.detect('The door is not open.')).toEqual([]);
  });
});

describe('rule-set selection', () => {
  it('goes by task type, case-insensitively, with our aliases; any other type gets our SWE/shell set', () => {
    expect(rules.forTaskType('HLE').benchmark).toBe('hle');
    for (const alias of ['qa', 'gaia', 'browsecomp', 'simpleqa']) expect(rules.forTaskType(alias).benchmark).toBe('hle');
    expect(rules.forTaskType('ScienceWorld').benchmark).toBe('scienceworld');
    for (const other of ['swe', 'coding', 'uno', null, undefined]) expect(rules.forTaskType(other).benchmark).toBe('swe');
  });
});

describe('our SWE/shell rules under the authors\' hierarchy', () => {
  it('an error that explains a non-zero exit replaces nonzero_exit', () => {
    expect(swe.detect('<returncode>2</returncode>\n<output>\nls: cannot access \'x\': No such file or directory\n</output>')).toEqual([{ type: 'file_not_found', severity: 'low' }]);
    expect(swe.detect('<returncode>127</returncode>\n<output>\nbash: pytset: command not found\n</output>')).toEqual([{ type: 'shell_command_not_found', severity: 'high' }]);
    expect(swe.detect('<returncode>1</returncode>\n<output>\n</output>')).toEqual([{ type: 'nonzero_exit', severity: 'low' }]);
  });

  it('a traceback that ends in SyntaxError stays python_traceback; a syntax error without one is python_syntax_error', () => {
    const tb = '<returncode>1</returncode>\n<output>\nTraceback (most recent call last):\n  File "t.py", line 2, in <module>\n    import m\n  File "/testbed/m.py", line 4\nSyntaxError: invalid syntax\n</output>';
    expect(swe.detect(tb)).toEqual([{ type: 'python_traceback', severity: 'medium' }]);
    const bare = '<returncode>1</returncode>\n<output>\n  File "/testbed/m.py", line 4\n    def f(:\nSyntaxError: invalid syntax\n</output>';
    expect(swe.detect(bare)).toEqual([{ type: 'python_syntax_error', severity: 'high' }]);
  });
});

describe('rule files', () => {
  const write = (rulesJson: unknown[]): string => {
    const dir = join(tempDir(), 'rules');
    mkdirSync(dir);
    writeFileSync(join(dir, 'x.json'), JSON.stringify({ benchmark: 'x', default: true, rules: rulesJson }));
    return dir;
  };

  it('refuse a key the schema does not know (a misspelt or retired option)', () => {
    const dir = write([{ name: 'a', severity: 'low', patterns: ['a'], ignore_case: true }]);
    expect(() => loadErrorRules(dir)).toThrow(/x\.json: rules\.0: Unrecognized key.*ignore_case/);
  });

  it('refuse a parent that names no rule, and a rule that matches nothing', () => {
    expect(() => loadErrorRules(write([{ name: 'a', severity: 'low', patterns: ['a'], parent: 'b' }]))).toThrow(/rule a: unknown parent b/);
    expect(() => loadErrorRules(write([{ name: 'a', severity: 'low' }]))).toThrow(/needs at least one pattern or regex/);
  });
});
