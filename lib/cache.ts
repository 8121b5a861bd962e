/**
 * A least-recently-used cache bounded by the total size of its values (string lengths), for
 * results keyed by a series version: a new version simply makes old keys unreachable.
 */
export class LruCache {
  private readonly entries = new Map<string, string>();
  private size = 0;

  constructor(private readonly maxSize: number) {}

  get(key: string): string | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: string): void {
    if (value.length > this.maxSize / 4) return;
    const previous = this.entries.get(key);
    if (previous !== undefined) {
      this.size -= previous.length;
      this.entries.delete(key);
    }
    this.entries.set(key, value);
    this.size += value.length;
    for (const [oldest, old] of this.entries) {
      if (this.size <= this.maxSize) break;
      this.entries.delete(oldest);
      this.size -= old.length;
    }
  }

  get bytes(): number {
    return this.size;
  }
}

const KEY = Symbol.for("enhydris.caches");
type Holder = { [KEY]?: Map<string, LruCache> };

/** A named process-wide cache (the chart's, the legacy statistics'). */
export function namedCache(name: string, maxSize: number): LruCache {
  const holder = globalThis as Holder;
  const caches = (holder[KEY] ??= new Map());
  let cache = caches.get(name);
  if (!cache) {
    cache = new LruCache(maxSize);
    caches.set(name, cache);
  }
  return cache;
}
