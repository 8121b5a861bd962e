/** A FIFO async mutex. */
export class Mutex {
  private tail: Promise<void> = Promise.resolve();
  /** Runs holding or waiting for the lock. */
  private pending = 0;

  /** Whether the lock is held, and how many runs wait for it. */
  get use(): { held: boolean; waiting: number } {
    return { held: this.pending > 0, waiting: Math.max(0, this.pending - 1) };
  }

  async run<T>(fn: () => Promise<T> | T): Promise<T> {
    this.pending++;
    let release!: () => void;
    const previous = this.tail;
    this.tail = new Promise<void>((resolve) => (release = resolve));
    await previous;
    try {
      return await fn();
    } finally {
      this.pending--;
      release();
    }
  }
}
