/**
 * The value cached under `key`, made by `make` and cached when absent. The cache holds at most
 * `max` entries: when full, it starts over (the values are cheap to make again, just not on every
 * delivery).
 */
export function remember<K, V>(cache: Map<K, V>, key: K, max: number, make: () => V): V {
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  const value = make();
  if (cache.size >= max) cache.clear();
  cache.set(key, value);
  return value;
}
