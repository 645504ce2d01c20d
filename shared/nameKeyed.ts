/**
 * Objects keyed by names a log wrote (models, splits, categories, task types). A plain `{}` inherits from
 * Object.prototype: assigning `obj['__proto__']` changes its prototype instead of adding a key (a model of that
 * name vanished from usage-by-turn, whose shares then summed to 0.875), and reading `obj['constructor']` or
 * `obj['toString']` finds a function where no key was set (issue 38 item 4). These two never consult a prototype.
 */

/** An empty record without a prototype: every name, `__proto__` included, is an own key like any other. */
export function nameKeyed<V>(): Record<string, V> {
  return Object.create(null) as Record<string, V>;
}

/** The value `record` holds under `key` itself, never one inherited from its prototype. */
export function ownValue<V>(record: Readonly<Record<string, V>>, key: string): V | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
