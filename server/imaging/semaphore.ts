/** At most `size` tasks run at once; the rest wait in arrival order. */
export class Semaphore {
  private waiting: Array<() => void> = [];
  private active = 0;
  private readonly watchers = new Set<() => void>();
  constructor(readonly size: number) {}

  /** Tasks running now (not those waiting for a slot). */
  get inUse(): number {
    return this.active;
  }

  /** Calls `listener` once, the next time a task starts or ends; the same listener given twice is called once. */
  onceChanged(listener: () => void): void {
    this.watchers.add(listener);
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else {
      this.active++;
      this.changed();
    }
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next)
        next(); // the slot passes straight to the next waiter
      else {
        this.active--;
        this.changed();
      }
    }
  }

  private changed(): void {
    if (this.watchers.size === 0) return;
    const watchers = [...this.watchers];
    this.watchers.clear();
    for (const watcher of watchers) watcher();
  }
}
