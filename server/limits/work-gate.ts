/**
 * A count of heavy requests this process works on at once. Past the limit a request is turned away (503 with
 * Retry-After) before its body is read, so a burst costs a refusal, not the memory of every body and decode.
 */
export interface WorkGate {
  readonly limit: number;
  readonly inFlight: number;
  /** A release function (safe to call twice), or null when the gate is full. */
  tryEnter(): (() => void) | null;
}

export function createWorkGate(limit: number): WorkGate {
  let inFlight = 0;
  return {
    limit,
    get inFlight() {
      return inFlight;
    },
    tryEnter() {
      if (inFlight >= limit) return null;
      inFlight += 1;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        inFlight -= 1;
      };
    },
  };
}
