/**
 * A map of at most `size` entries that forgets the least recently used, in two generations:
 * a hit in the newer is one Map lookup (no reordering per read, as this runs per request); a hit
 * in the older moves the entry to the newer; when the newer is full it becomes the older, and
 * the older's entries, unused for a whole generation, are forgotten.
 */
export class Lru<K, V> {
  private newer = new Map<K, V>();
  private older = new Map<K, V>();
  private readonly generation: number;

  constructor(size: number) {
    this.generation = Math.max(1, Math.floor(size / 2));
  }

  get(key: K): V | undefined {
    const value = this.newer.get(key);
    if (value !== undefined) return value;
    const old = this.older.get(key);
    if (old !== undefined) {
      this.older.delete(key);
      this.add(key, old);
    }
    return old;
  }

  set(key: K, value: V): void {
    if (this.newer.has(key)) this.newer.set(key, value);
    else {
      this.older.delete(key);
      this.add(key, value);
    }
  }

  private add(key: K, value: V): void {
    if (this.newer.size >= this.generation) {
      this.older = this.newer;
      this.newer = new Map();
    }
    this.newer.set(key, value);
  }
}
