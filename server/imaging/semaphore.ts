/** At most `slots` tasks run at once; the rest wait in arrival order. */
export class Semaphore {
  private waiting: Array<() => void> = [];
  private active = 0;
  constructor(private readonly slots: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.slots) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next)
        next(); // the slot passes straight to the next waiter
      else this.active--;
    }
  }
}
