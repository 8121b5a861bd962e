/**
 * A least-recently-used cache bounded by the total size of its values (string lengths, or what
 * `sizeOf` says), for results keyed by a version read from the database (a series' version, the
 * metadata version): a new version simply makes old keys unreachable.
 */
export class LruCache<V = string> {
  private readonly entries = new Map<string, V>();
  private readonly sizes = new Map<string, number>();
  private size = 0;

  constructor(private readonly maxSize: number, private readonly sizeOf: (value: V) => number = (v) => (v as unknown as string).length) {}

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    const size = this.sizeOf(value);
    if (size > this.maxSize / 4) return;
    const previous = this.sizes.get(key);
    if (previous !== undefined) {
      this.size -= previous;
      this.entries.delete(key);
    }
    this.entries.set(key, value);
    this.sizes.set(key, size);
    this.size += size;
    for (const oldest of this.entries.keys()) {
      if (this.size <= this.maxSize) break;
      this.entries.delete(oldest);
      this.size -= this.sizes.get(oldest)!;
      this.sizes.delete(oldest);
    }
  }

  get bytes(): number {
    return this.size;
  }
}

const KEY = Symbol.for("enhydris.caches");
type Holder = { [KEY]?: Map<string, LruCache<unknown>> };

/** A named process-wide cache (the chart's, the legacy statistics', the station list's). */
export function namedCache<V = string>(name: string, maxSize: number, sizeOf?: (value: V) => number): LruCache<V> {
  const holder = globalThis as Holder;
  const caches = (holder[KEY] ??= new Map());
  let cache = caches.get(name) as LruCache<V> | undefined;
  if (!cache) {
    cache = new LruCache<V>(maxSize, sizeOf);
    caches.set(name, cache as LruCache<unknown>);
  }
  return cache;
}
