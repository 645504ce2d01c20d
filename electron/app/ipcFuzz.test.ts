// Fuzz of the IPC surface (DESIGN §12, issue 8 item 6): every contract call's handler gets arbitrary payloads
// (any structured-cloneable value, objects with the contract's own field names and hostile values, `__proto__`
// keys). A payload its zod schema rejects must come back as an input ApiError naming the call, and never reach
// the service; one the schema accepts reaches the service exactly once, as the schema's output (unknown keys
// stripped, defaults filled). Calls from anything but our window are refused whatever they carry.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { API_NAMES, apiContract, type ApiName, type RouteLensApi } from '../../shared/api.ts';
import { channelOf } from './channels.ts';
import { ApiCallError, registerApiHandlers, type IpcInvokeEventLike, type IpcMainLike } from './ipc.ts';

const SEED = Number(process.env.ROUTELENS_FUZZ_SEED ?? 20_260_508);
const RUNS = Math.round(300 * Number(process.env.ROUTELENS_FUZZ_RUNS ?? 1));

function harness(trusted: boolean) {
  const handlers = new Map<string, (event: IpcInvokeEventLike, ...args: unknown[]) => unknown>();
  const ipc: IpcMainLike = {
    handle: (channel, listener) => void handlers.set(channel, listener),
    removeHandler: (channel) => void handlers.delete(channel),
  };
  const calls: { name: ApiName; input: unknown }[] = [];
  // Every service records what reached it; the value it returns does not matter here.
  const api = Object.fromEntries(
    API_NAMES.map((name) => [name, async (input: unknown) => void calls.push({ name, input })]),
  ) as unknown as RouteLensApi;
  registerApiHandlers(ipc, () => api, () => trusted);
  return { handlers, calls };
}

const event: IpcInvokeEventLike = { sender: { id: 1 }, senderFrame: { url: 'app://routelens/index.html', parent: null } };

/** Field names the contract uses, so generated objects often come close to valid. */
const KEYS = [
  'id', 'ext_id', 'run', 'runs', 'runIds', 'models', 'model', 'outcome', 'search', 'sort', 'desc', 'offset', 'limit',
  'files', 'path', 'data_base64', 'job', 'policy', 'policies', 'episode', 'episodeId', 'estimator', 'analysis', 'kind',
  'format', 'seed', 'bootstrap', 'options', 'figure', 'width', 'height', 'dpi', 'theme', '__proto__', 'constructor',
];

const hostile = fc.constantFrom<unknown>(
  '<script>alert(1)</script>', 'javascript:alert(1)', '../../../../etc/passwd', '/etc/passwd', 'C:\\Windows\\win.ini',
  '\u0000', 'x'.repeat(100_000), 'id; DROP TABLE runs', -1, 1e308, Number.NaN, Number.POSITIVE_INFINITY, -0,
  2 ** 53 + 1, '', [], {}, null, true,
);

const value: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.anything({ maxDepth: 4, withBigInt: true, withDate: true, withMap: true, withSet: true, withTypedArray: true, withSparseArray: true, withNullPrototype: true, withBoxedValues: true }) },
  { weight: 2, arbitrary: hostile },
  { weight: 2, arbitrary: fc.integer({ min: -5, max: 100 }) },
  { weight: 1, arbitrary: fc.array(fc.integer({ min: -1, max: 5 }), { maxLength: 5 }) },
  { weight: 1, arbitrary: fc.array(fc.record({ path: fc.oneof(fc.string(), hostile), data_base64: fc.oneof(fc.base64String(), hostile) }), { maxLength: 3 }) },
);

/** Objects with contract field names (some `__proto__`, defined as own keys the way JSON.parse does). */
const nearValid: fc.Arbitrary<unknown> = fc
  .array(fc.tuple(fc.constantFrom(...KEYS), value), { maxLength: 5 })
  .map((entries) => {
    const o: Record<string, unknown> = {};
    for (const [k, v] of entries) Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
    return o;
  });

const payload: fc.Arbitrary<unknown> = fc.oneof({ weight: 3, arbitrary: nearValid }, { weight: 1, arbitrary: value }, { weight: 1, arbitrary: fc.constant(undefined) });

describe('IPC surface fuzz', () => {
  it(`${RUNS} arbitrary payloads per call: rejected by the shared schema as input errors, or passed on as parsed`, async () => {
    let rejected = 0;
    let accepted = 0;
    for (const name of API_NAMES) {
      await fc.assert(
        fc.asyncProperty(payload, async (input) => {
          const { handlers, calls } = harness(true);
          const handler = handlers.get(channelOf(name));
          expect(handler).toBeDefined();
          const outcome = await Promise.resolve(handler?.(event, input)).then(
            () => null,
            (err: unknown) => err,
          );
          const parsed = apiContract[name].input.safeParse(input ?? {});
          if (parsed.success) {
            accepted++;
            expect(outcome).toBeNull();
            expect(calls).toEqual([{ name, input: parsed.data }]);
          } else {
            rejected++;
            expect(outcome).toBeInstanceOf(ApiCallError);
            expect((outcome as ApiCallError).kind).toBe('input');
            expect((outcome as ApiCallError).message.startsWith(`${name}: `)).toBe(true);
            expect(calls).toEqual([]);
          }
          expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        }),
        { seed: SEED, numRuns: RUNS },
      );
    }
    console.log(`ipc fuzz: ${API_NAMES.length} calls × ${RUNS} payloads, ${rejected} rejected as input errors, ${accepted} accepted`);
    expect(rejected).toBeGreaterThan(0);
    expect(accepted).toBeGreaterThan(0);
  });

  it('refuses every call from an untrusted sender before looking at the payload', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...API_NAMES), payload, async (name, input) => {
        const { handlers, calls } = harness(false);
        const err = await Promise.resolve(handlers.get(channelOf(name))?.(event, input)).then(() => null, (e: unknown) => e);
        expect(err).toBeInstanceOf(ApiCallError);
        expect((err as Error).message).toMatch(/not a RouteLens window/);
        expect(calls).toEqual([]);
      }),
      { seed: SEED, numRuns: 200 },
    );
  });

  it('registers no channel outside the contract (a renderer cannot invoke anything else)', () => {
    const { handlers } = harness(true);
    expect([...handlers.keys()].sort()).toEqual(API_NAMES.map(channelOf).sort());
  });
});
