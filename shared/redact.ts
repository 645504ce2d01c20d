/**
 * Redaction: secrets and personal names taken out of log text before it leaves the machine (a shared HTML
 * case, a CSV or Parquet export). Pure string work, no Node: the CLI, the exporters and the window run it.
 *
 * How it is organised. A text is held as alternating pieces: raw text, placeholder, raw text, … Each rule,
 * in a fixed order from most to least specific, looks only at the raw pieces and splits them where it finds a
 * secret. So a secret is counted once, under the first (most specific) kind that claims it: an Anthropic key
 * is never also an `sk-…` OpenAI key, `OPENAI_API_KEY=sk-…` counts one OpenAI key (the env rule then sees an
 * empty value), `Authorization: Bearer eyJ…` counts one JWT; and no rule, a user's `--redact` pattern
 * included, ever matches inside a placeholder.
 *
 * What is caught (placeholders say the kind, `[redacted: OpenAI key]`; home folders keep the folder):
 * - keys and tokens by their shape: Anthropic `sk-ant-…`, OpenAI (and OpenAI-style) `sk-…` / `sk-proj-…`,
 *   Google `AIza…` (39 characters), AWS access key ids `AKIA…` / `ASIA…` (20) and the values of
 *   `aws_secret_access_key = …` (40) and `aws_session_token = …`, GitHub `ghp_ gho_ ghu_ ghs_ ghr_ github_pat_…`, Slack `xox[abprs]-…`,
 *   JWTs `eyJ….eyJ….signature`, PEM private key blocks (BEGIN … PRIVATE KEY through END, or to the end of the
 *   base64 when a log cut the block short). A `sk-` or `xox…-` body must hold a digit or both letter cases,
 *   so kebab-case words (`sk-button-primary-…`) stay;
 * - `Authorization: Bearer|Basic|Token X` (any X of 8+ token characters), and a bare `bearer X` where X holds
 *   letters and digits (so prose like "bearer authentication" stays);
 * - env secrets: `NAME=value`, `export NAME="value"`, `NAME: value` (YAML-ish listings), `"NAME": "value"`,
 *   where NAME is UPPER_SNAKE as environments write it and one of its `_` parts is a secret word (KEY, TOKEN,
 *   SECRET, PASSWORD, PASSWD, PWD, PASS, PASSPHRASE, CREDENTIAL(S), CREDS, AUTH, APIKEY, COOKIE, DSN, …). The
 *   name stays, the value goes. Not secrets:
 *     - a name whose last part describes the secret instead of holding it: `…_FILE`, `…_PATH`, `…_DIR`,
 *       `…_URL`, `…_TYPE`, `…_ENABLED`, `…_LIMIT`, `…_COUNT`, `…_TTL`, `…_TIMEOUT`, `SSH_AUTH_SOCK`, … (so
 *       `TOKEN_LIMIT=4096` and `API_KEY_FILE=/run/key` stay);
 *     - a value of digits only, unless the name says PASSWORD, PASSWD, PWD, PASS, PASSPHRASE, SECRET or PIN:
 *       generated keys and tokens are never digits only, so `MAX_TOKEN=8192` and `CHARS_PER_TOKEN = 4` are
 *       settings, while `PASSWORD=123456` is still a secret;
 *     - SWE-bench's `PASS_TO_PASS` / `FAIL_TO_PASS` test lists;
 *     - values that are no literal: empty, `true`/`false`/`none`/`null`/…, `$VAR` / `${VAR}` / `%VAR%` /
 *       `<your-key>` references, masks (`****`, `xxxx`), code (`os.environ["X"]`, `process.env.KEY`,
 *       `getToken()`), the name itself (`TOKEN = token`); after `:` also a word or identifier without digits
 *       (`API_KEY: string`, `TOKEN: TokenCounter`, a type annotation).
 *   Lower- and camel-case names (`api_key=…` in Python, `apiKey: props.key`) are code far more often than
 *   secrets and are left to the shaped rules above; so `const key = props.key` stays;
 * - home-folder user names: `/home/NAME`, `/Users/NAME`, `C:\Users\NAME`, `C:\\Users\\NAME` (JSON's escape),
 *   `C:/Users/NAME` become `/home/[user]`… A path must start the word (`example.com/home/x` is a URL, not a
 *   home); `/home/` alone stays; shared and generic container accounts (Shared, Public, Default, user,
 *   ubuntu, runner, root, …) and documentation's stand-ins (`/home/NAME`, `/Users/you`) are not a person and stay.
 * - the user's own patterns (`--redact REGEX`), last, as kind `custom`.
 *
 * Hostile input: every pattern is linear. Quantifiers are bounded, each pattern opens with a look-behind so a
 * run of token characters is tried from its start only, and no token class holds the character that must
 * follow it, so a failed attempt gives back in one step per character. A 5 MB adversarial string takes well
 * under a second per rule (redact.test.ts holds the bound).
 */

/** One name per kind of secret; `custom` is a user's `--redact` pattern. */
export type RedactionKind =
  | 'openai-key'
  | 'anthropic-key'
  | 'google-key'
  | 'aws-key'
  | 'github-token'
  | 'slack-token'
  | 'jwt'
  | 'private-key'
  | 'env-secret'
  | 'bearer'
  | 'home-user'
  | 'custom';

/** `enabled: false` passes everything through (`--no-redact`); `extra` are the user's `--redact` patterns. */
export interface RedactionOptions {
  enabled: boolean;
  extra: RegExp[];
}

/** How each kind is named: in the summary (one / many) and in its placeholder. Summary order is this order. */
export const REDACTION_KINDS: Readonly<Record<RedactionKind, { one: string; many: string; placeholder: string }>> = {
  'private-key': { one: 'private key block', many: 'private key blocks', placeholder: '[redacted: private key block]' },
  jwt: { one: 'JWT', many: 'JWTs', placeholder: '[redacted: JWT]' },
  'anthropic-key': { one: 'Anthropic key', many: 'Anthropic keys', placeholder: '[redacted: Anthropic key]' },
  'openai-key': { one: 'OpenAI key', many: 'OpenAI keys', placeholder: '[redacted: OpenAI key]' },
  'google-key': { one: 'Google API key', many: 'Google API keys', placeholder: '[redacted: Google API key]' },
  'aws-key': { one: 'AWS key', many: 'AWS keys', placeholder: '[redacted: AWS key]' },
  'github-token': { one: 'GitHub token', many: 'GitHub tokens', placeholder: '[redacted: GitHub token]' },
  'slack-token': { one: 'Slack token', many: 'Slack tokens', placeholder: '[redacted: Slack token]' },
  bearer: { one: 'bearer token', many: 'bearer tokens', placeholder: '[redacted: bearer token]' },
  'env-secret': { one: 'environment secret', many: 'environment secrets', placeholder: '[redacted: environment secret]' },
  'home-user': { one: 'home-folder user name', many: 'home-folder user names', placeholder: '[user]' },
  custom: { one: 'custom pattern match', many: 'custom pattern matches', placeholder: '[redacted: custom pattern]' },
};

/**
 * A rule: a global regex with two adjacent named groups, `keep` (stays, may be empty) then `secret` (replaced);
 * look-arounds outside them. `accept` may turn a match down (a kebab-case word, `TOKEN_LIMIT=4096`).
 */
interface Rule {
  kind: RedactionKind;
  pattern: RegExp;
  accept?: (secret: string, match: RegExpExecArray) => boolean;
  /** A user's pattern: the whole match is the secret (their groups and back-references stay theirs). */
  whole?: true;
}

const hasDigit = (s: string): boolean => /[0-9]/.test(s);
const hasBothCases = (s: string): boolean => /[a-z]/.test(s) && /[A-Z]/.test(s);
/** Random-looking: what a generated key body is and a word or kebab-case name is not. */
const looksGenerated = (s: string): boolean => hasDigit(s) || hasBothCases(s);

const SECRET_WORDS = new Set([
  'apikey', 'token', 'secret', 'password', 'passwd', 'pwd', 'pass', 'passphrase', 'credential', 'credentials',
  'creds', 'auth', 'dsn', 'privatekey', 'secretkey', 'accesskey', 'authtoken',
]);
/**
 * KEY alone names a storage or cache key as often as a secret (`STORAGE_KEY = 'todos-vuejs'` in the
 * OpenHands sample): it is a secret after one of these words, else only when the value looks generated.
 */
const KEY_QUALIFIERS = new Set(['api', 'secret', 'access', 'private', 'signing', 'encryption', 'master', 'license', 'client']);
/** A last part that says what the value is about (where the key lives, how long a token may be), not the secret. */
const DESCRIBING_WORDS = new Set([
  'file', 'files', 'path', 'dir', 'url', 'uri', 'endpoint', 'host', 'port', 'sock', 'socket', 'type', 'mode',
  'enabled', 'disabled', 'enable', 'disable', 'required', 'name', 'names', 'id', 'ids', 'limit', 'limits',
  'count', 'size', 'length', 'len', 'max', 'min', 'ttl', 'timeout', 'expiry', 'expires', 'expiration', 'header',
  'prefix', 'suffix', 'format', 'version', 'algorithm', 'alg', 'provider', 'method', 'kind', 'region', 'scope',
  'scopes', 'env', 'var', 'field', 'location', 'strategy', 'source', 'helper', 'store', 'backend', 'command',
  'cmd', 'level', 'policy', 'rotation', 'interval', 'retries', 'budget', 'usage', 'seconds', 'ms', 'days',
  'domain', 'samesite', 'secure', 'httponly', 'age', 'counter', 'counters', 'estimate', 'estimator',
]);
/**
 * Words naming something a person chose: a digits-only value is a secret only under one of these (a PIN, a
 * numeric password). Under KEY, TOKEN or AUTH alone it is a count or a setting (`CHARS_PER_TOKEN = 4`,
 * `MAX_TOKEN=8192`, `TOKEN_LIMIT=4096`): generated keys and tokens are never digits only.
 */
const PASSWORD_WORDS = new Set(['password', 'passwd', 'pwd', 'pass', 'passphrase', 'secret', 'pin']);
/** Names that hold a secret word and no secret: SWE-bench's lists of tests (`PASS_TO_PASS: […]`). */
const NOT_SECRET_NAMES = new Set(['PASS_TO_PASS', 'FAIL_TO_PASS', 'PASS_TO_FAIL', 'FAIL_TO_FAIL']);
const NOT_LITERAL = /^(?:true|false|yes|no|on|off|null|none|nil|undefined|empty)$/i;

/** 'strong' when the name says it holds a secret, 'key' when only a bare KEY part does, else undefined. */
function envNameSecrecy(name: string): 'strong' | 'key' | undefined {
  const parts = name.toLowerCase().split('_').filter((p) => p !== '');
  const last = parts[parts.length - 1];
  if (last === undefined || DESCRIBING_WORDS.has(last) || NOT_SECRET_NAMES.has(name)) return undefined;
  if (parts.some((p) => SECRET_WORDS.has(p))) return 'strong';
  const key = parts.indexOf('key');
  if (key < 0) return undefined;
  return key > 0 && KEY_QUALIFIERS.has(parts[key - 1] ?? '') ? 'strong' : 'key';
}

function envValueIsSecret(value: string, match: RegExpExecArray, afterColon: boolean): boolean {
  const name = match.groups?.name ?? '';
  const secrecy = envNameSecrecy(name);
  if (secrecy === undefined) return false;
  if (NOT_LITERAL.test(value) || /^[$%<]/.test(value) || /^[*xX•.#-]+$/.test(value)) return false;
  // Masked already (aider prints `...9doi`), or the sample value of a README (`your-key-goes-here`).
  if (/^(?:\.{3}|…|\*{3})|(?:\.{3}|…|\*{3})$/.test(value) || /^your[-_ ]/i.test(value)) return false;
  if (/[()[\]{}]/.test(value) || /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/.test(value)) return false; // code
  const parts = name.toLowerCase().split('_');
  if (/^[0-9]+$/.test(value) && !parts.some((p) => PASSWORD_WORDS.has(p))) return false;
  const lowered = value.toLowerCase();
  if (lowered === name.toLowerCase() || parts.includes(lowered)) return false; // `TOKEN = token`, `SECRET_KEY='secret'`
  // After a colon, a word or identifier without digits is a type or a label (`API_KEY: string`, `TOKEN: TokenCounter`).
  if (afterColon && /^[A-Za-z_$][A-Za-z_$]*$/.test(value)) return false;
  if (secrecy === 'key') return value.length >= 8 && hasDigit(value) && /[A-Za-z]/.test(value);
  return true;
}

/** Accounts that are a machine's, not a person's: no one is named by them. */
const GENERIC_HOMES = new Set([
  'shared', 'public', 'default', 'default user', 'all users', 'guest', 'user', 'ubuntu', 'runner', 'root', 'admin',
  'vscode', 'node', 'app', 'ec2-user', 'codespace', 'jovyan', 'docker',
  // and the stand-ins of documentation: `/home/NAME`, `/Users/you`, `/home/me/.claude`
  'name', 'username', 'yourname', 'your-name', 'you', 'me', 'someone', 'example',
]);

/** ENV: `export ` / a quote (JSON's `\"` too) / the UPPER_SNAKE name / closing quote / `=` or `:`. */
const ENV_HEAD = String.raw`(?:export[ \t]{1,8})?(?:\\?["'])?(?<name>[A-Z][A-Z0-9_]{0,127})(?:\\?["'])?[ \t]{0,8}(?<sep>[=:])[ \t]{0,8}`;

/**
 * A start-of-token look-behind: not after a character of `cls`, or right after a JSON escape (`\n`, `\t`, `\r`),
 * since tool output often carries JSON text whose lines start after a literal backslash-n.
 */
const after = (cls: string): string => String.raw`(?:(?<![${cls}])|(?<=\\[nrt]))`;
const rx = (source: string, flags = 'g'): RegExp => new RegExp(source, flags);

const RULES: readonly Rule[] = [
  {
    kind: 'private-key',
    // The body may not hold five dashes, so an attempt stops at the next BEGIN or END: each character is
    // scanned by at most one attempt. A block a log cut short still goes (to the end of its base64).
    pattern: rx(
      String.raw`(?<keep>)(?<secret>-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----(?:[A-Za-z0-9+/=:,.\s\\]|-(?!----)){0,20000}(?:-----END [A-Z0-9 ]{0,40}PRIVATE KEY-----)?)`,
    ),
    accept: (secret) => secret.includes('-----END') || /[A-Za-z0-9+/]{40}/.test(secret),
  },
  {
    kind: 'jwt',
    pattern: rx(String.raw`${after('A-Za-z0-9_-')}(?<keep>)(?<secret>eyJ[A-Za-z0-9_-]{7,8000}\.eyJ[A-Za-z0-9_-]{7,16000}\.[A-Za-z0-9_-]{0,8000})`),
  },
  {
    kind: 'anthropic-key',
    pattern: rx(String.raw`${after('A-Za-z0-9_-')}(?<keep>)(?<secret>sk-ant-[A-Za-z0-9_-]{20,400})`),
    accept: looksGenerated,
  },
  {
    kind: 'openai-key',
    pattern: rx(String.raw`${after('A-Za-z0-9_-')}(?<keep>)(?<secret>sk-[A-Za-z0-9_-]{20,400})`),
    accept: (secret) => looksGenerated(secret.slice(3)),
  },
  {
    kind: 'google-key',
    pattern: rx(String.raw`${after('A-Za-z0-9_-')}(?<keep>)(?<secret>AIza[A-Za-z0-9_-]{35})(?![A-Za-z0-9_-])`),
  },
  {
    kind: 'aws-key',
    pattern: rx(String.raw`${after('A-Za-z0-9')}(?<keep>)(?<secret>(?:AKIA|ASIA)[A-Z0-9]{16})(?![A-Za-z0-9])`),
  },
  {
    kind: 'aws-key',
    pattern: rx(
      String.raw`${after('A-Za-z0-9_')}(?<keep>(?:aws_?)?secret_?access_?key(?:\\?["'])?[ \t]{0,8}[:=][ \t]{0,8}(?:\\?["'])?)(?<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])`,
      'gi',
    ),
  },
  {
    kind: 'aws-key', // a session's token (STS), as ~/.aws/credentials writes it
    pattern: rx(
      String.raw`${after('A-Za-z0-9_')}(?<keep>aws_?session_?token(?:\\?["'])?[ \t]{0,8}[:=][ \t]{0,8}(?:\\?["'])?)(?<secret>[A-Za-z0-9/+=]{16,4096})`,
      'gi',
    ),
  },
  {
    kind: 'github-token',
    pattern: rx(String.raw`${after('A-Za-z0-9_')}(?<keep>)(?<secret>gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{22,250})`),
  },
  {
    kind: 'slack-token',
    pattern: rx(String.raw`${after('A-Za-z0-9_-')}(?<keep>)(?<secret>xox[abeprs]-[A-Za-z0-9-]{10,250})`),
    accept: (secret) => hasDigit(secret),
  },
  {
    kind: 'bearer',
    pattern: rx(
      String.raw`${after('A-Za-z0-9_-')}(?<keep>authorization(?:\\?["'])?[ \t]{0,8}[:=][ \t]{0,8}(?:\\?["'])?(?:bearer|basic|token)[ \t]{1,8})(?<secret>[A-Za-z0-9._~+/=-]{8,4096})`,
      'gi',
    ),
  },
  {
    kind: 'bearer',
    pattern: rx(String.raw`${after('A-Za-z0-9_-')}(?<keep>bearer[ \t]{1,8})(?<secret>[A-Za-z0-9._~+/=-]{16,4096})`, 'gi'),
    accept: (secret) => hasDigit(secret) && /[A-Za-z]/.test(secret),
  },
  {
    kind: 'env-secret', // quoted: the value may hold spaces
    pattern: rx(String.raw`${after('A-Za-z0-9_$.-')}(?<keep>${ENV_HEAD}\\?["'])(?<secret>[^"'\\\r\n]{1,4096})`),
    accept: (secret, m) => envValueIsSecret(secret, m, false),
  },
  {
    kind: 'env-secret',
    pattern: rx(String.raw`${after('A-Za-z0-9_$.-')}(?<keep>${ENV_HEAD})(?<secret>[^\s"'\\,;${'`'}=][^\s"'\\,;${'`'}]{0,4095})`),
    accept: (secret, m) => envValueIsSecret(secret, m, m.groups?.sep === ':'),
  },
  {
    kind: 'home-user',
    // `a/home/…` and `b/home/…` are git diff headers (`+++ b/home/wei/repo/Cargo.toml` in the Copilot sample).
    pattern: rx(
      String.raw`(?:${after('A-Za-z0-9_.~%-')}|(?<=(?:^|[\s"'])[ab]))(?<keep>/home/|/Users/)(?<secret>[A-Za-z0-9._-]{1,64})`,
    ),
    accept: (secret) => !GENERIC_HOMES.has(secret.toLowerCase()) && secret !== '.' && secret !== '..',
  },
  {
    kind: 'home-user', // Claude Code's project folders spell the path with dashes: ~/.claude/projects/-home-wei-repo
    pattern: rx(String.raw`(?<=[/\\"'\s]|^)(?<keep>-home-|-Users-)(?<secret>[A-Za-z0-9_]{1,64})(?=-)`),
    accept: (secret) => !GENERIC_HOMES.has(secret.toLowerCase()),
  },
  {
    kind: 'home-user', // Windows: a name with spaces only where a separator closes it
    pattern: rx(
      String.raw`(?<![A-Za-z0-9])(?<keep>[A-Za-z]:(?:\\{1,2}|/)Users(?:\\{1,2}|/))(?<secret>[A-Za-z0-9._$-](?:[A-Za-z0-9._$ -]{0,62}[A-Za-z0-9._$-])?(?=[\\/])|[A-Za-z0-9._$-]{1,64})`,
      'gi',
    ),
    accept: (secret) => !GENERIC_HOMES.has(secret.toLowerCase()),
  },
];

/** The rule for a user's pattern: the whole match is the secret. */
function customRule(re: RegExp): Rule {
  const flags = re.flags.includes('g') ? re.flags.replace('y', '') : `${re.flags.replace('y', '')}g`;
  return { kind: 'custom', pattern: new RegExp(re.source, flags), whole: true };
}

/**
 * Finds secrets and replaces them with placeholders, counting by kind over every call (one Redactor per
 * export, so its summary covers the whole file).
 */
export class Redactor {
  readonly #enabled: boolean;
  readonly #rules: readonly Rule[];
  readonly #counts = new Map<RedactionKind, number>();

  constructor(options: RedactionOptions) {
    this.#enabled = options.enabled;
    this.#rules = [...RULES, ...options.extra.map(customRule)];
  }

  /** `s` with each secret replaced by its placeholder (counted); `s` itself when redaction is off. */
  text(s: string): string {
    if (!this.#enabled || s === '') return s;
    // Even indices: raw text still to be searched; odd indices: placeholders, never searched again.
    let pieces: string[] = [s];
    for (const rule of this.#rules) pieces = this.#apply(rule, pieces);
    return pieces.length === 1 ? s : pieces.join('');
  }

  #apply(rule: Rule, pieces: string[]): string[] {
    let out: string[] | undefined;
    for (let i = 0; i < pieces.length; i += 2) {
      const raw = pieces[i] ?? '';
      const split = this.#split(rule, raw);
      if (split === undefined) {
        if (out !== undefined) out.push(raw);
      } else {
        out ??= pieces.slice(0, i);
        for (const piece of split) out.push(piece); // not push(...split): a hostile text splits into millions
      }
      if (out !== undefined && i + 1 < pieces.length) out.push(pieces[i + 1] ?? '');
    }
    return out ?? pieces;
  }

  /** `raw` as raw, placeholder, raw, …; undefined when the rule finds nothing in it. */
  #split(rule: Rule, raw: string): string[] | undefined {
    const re = rule.pattern;
    re.lastIndex = 0;
    let out: string[] | undefined;
    let from = 0;
    let m: RegExpExecArray | null;
    while ((m = re.exec(raw)) !== null) {
      const secret = rule.whole ? m[0] : (m.groups?.secret ?? '');
      if (secret === '') {
        if (m[0] === '') re.lastIndex++; // a user pattern that matched nothing: step on
        continue;
      }
      if (rule.accept !== undefined && !rule.accept(secret, m)) {
        // Turned down: try again from the next character, as a failed match would have.
        re.lastIndex = m.index + 1;
        continue;
      }
      const start = m.index + (rule.whole ? 0 : (m.groups?.keep ?? '').length);
      (out ??= []).push(raw.slice(from, start), REDACTION_KINDS[rule.kind].placeholder);
      from = start + secret.length;
      this.#counts.set(rule.kind, (this.#counts.get(rule.kind) ?? 0) + 1);
    }
    if (out === undefined) return undefined;
    out.push(raw.slice(from));
    return out;
  }

  /**
   * A deep copy of `v` (arrays and plain objects) with every string value passed through `text()`; object keys
   * stay as they are. Iterative, so hostile nesting depth cannot overflow the stack.
   */
  value<T>(v: T): T {
    const root: { v: unknown } = { v: undefined };
    const stack: { from: unknown; into: Record<string | number, unknown>; key: string | number }[] = [
      { from: v, into: root as Record<string, unknown>, key: 'v' },
    ];
    for (let job = stack.pop(); job !== undefined; job = stack.pop()) {
      const { from, into, key } = job;
      if (typeof from === 'string') put(into, key, this.text(from));
      else if (Array.isArray(from)) {
        const copy: unknown[] = new Array<unknown>(from.length);
        put(into, key, copy);
        from.forEach((item, i) => stack.push({ from: item, into: copy as unknown as Record<number, unknown>, key: i }));
      } else if (isPlainObject(from)) {
        const copy: Record<string, unknown> = {};
        put(into, key, copy);
        // Every key set now, in order, so the copy's keys keep the original's order (JSON written from it reads the
        // same); strings and containers are put again, in place, when their turn on the stack comes.
        for (const [k, item] of Object.entries(from)) {
          put(copy, k, item);
          if (typeof item === 'string' || (typeof item === 'object' && item !== null)) stack.push({ from: item, into: copy, key: k });
        }
      } else put(into, key, from);
    }
    return root.v as T;
  }

  /** How many of each kind were replaced so far (kinds never seen are absent). */
  counts(): Partial<Record<RedactionKind, number>> {
    const out: Partial<Record<RedactionKind, number>> = {};
    for (const kind of Object.keys(REDACTION_KINDS) as RedactionKind[]) {
      const n = this.#counts.get(kind);
      if (n !== undefined) out[kind] = n;
    }
    return out;
  }

  /** One line for the CLI's stderr and an export's footer. */
  summary(): string {
    if (!this.#enabled) return 'redaction off';
    const parts = Object.entries(this.counts()).map(([kind, n]) => {
      const names = REDACTION_KINDS[kind as RedactionKind];
      return `${n} ${n === 1 ? names.one : names.many}`;
    });
    return parts.length === 0 ? 'redacted: nothing found' : `redacted: ${parts.join(', ')}`;
  }
}

/** `into[key] = value`, where a key `__proto__` (JSON.parse makes it an own key of a hostile log's object) stays a key. */
function put(into: Record<string | number, unknown>, key: string | number, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(into, key, { value, writable: true, enumerable: true, configurable: true });
  else into[key] = value;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * A user's `--redact REGEX`. A leading `(?i)` makes it case-insensitive (JavaScript has no inline flags).
 * Throws an Error whose message is one line naming the pattern and the reason, for an invalid pattern or one
 * that matches the empty string (it would "redact" between every two characters).
 */
export function parseRedactPattern(source: string): RegExp {
  const insensitive = source.startsWith('(?i)');
  const body = insensitive ? source.slice(4) : source;
  const shown = JSON.stringify(source);
  if (body === '') throw new Error(`--redact ${shown}: the pattern is empty`);
  // Unicode mode first (`\p{…}`, astral characters as one); a pattern only the older syntax accepts (`\-`
  // outside a class) is taken in that syntax rather than refused.
  let re: RegExp | undefined;
  let reason = '';
  for (const flags of insensitive ? ['giu', 'gi'] : ['gu', 'g']) {
    try {
      re = new RegExp(body, flags);
      break;
    } catch (err) {
      reason ||= err instanceof Error ? err.message : String(err);
    }
  }
  if (re === undefined) {
    const short = reason.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, '').split('\n')[0] ?? '';
    throw new Error(`--redact ${shown}: not a valid regular expression (${short})`);
  }
  for (const probe of ['', ' ', 'a', '\n', 'sk-x']) {
    re.lastIndex = 0;
    const m = re.exec(probe);
    if (m !== null && m[0] === '') throw new Error(`--redact ${shown}: the pattern matches the empty string`);
  }
  re.lastIndex = 0;
  return re;
}
