/**
 * Why an attempt was not made: the next hop failed to connect moments ago (no reply: refused,
 * unreachable, or no greeting in time). A next-hop failure like the one it stands for, so direct
 * delivery tries the next MX, and the recipient is deferred when there is none.
 */
export class NextHopResting extends Error {
  readonly code = 'ENEXTHOPDOWN';
  // nodemailer's error shape: a connection-phase failure, without a reply.
  readonly command = 'CONN';

  constructor(
    readonly nextHop: string,
    readonly until: number,
    cause: string,
  ) {
    super(`not tried: the next hop failed to connect moments ago (${cause}); it is tried again from ${new Date(until).toISOString()}`);
    this.name = 'NextHopResting';
  }
}

/** What the gate learns from an attempt through it. */
export type AttemptReport = { connected: true } | { connected: false; cause: string };

interface Hop {
  inFlight: number;
  waiting: Array<() => void>;
  /** Resting until this time (ms since the epoch), after a failure to connect; 0 when not. */
  restingUntil: number;
  cause: string;
}

export interface NextHopGateOptions {
  /** Attempts in flight at once per next hop: the pool's connections to it, so none waits inside the pool. */
  perHop: number;
  /** How long a next hop that failed to connect is left alone, in ms. */
  restMs: number;
  now?: () => number;
}

// Hops remembered at most; idle ones past their rest are forgotten first.
const MAX_HOPS = 10_000;

/**
 * Admits attempts to each next hop (an MX address or the smarthost) at most `perHop` at a time,
 * in arrival order, and stops attempts to one that just failed to connect, as Postfix marks a
 * dead destination: a tarpit that never greets, or a host that refuses or is unreachable, costs
 * one cohort of attempts one connection timeout, and the attempts waiting behind it, and the
 * ones that come within `restMs`, fail at once with {@link NextHopResting} instead of each
 * holding a delivery slot through another 30 s timeout. A successful connection ends the rest.
 */
export class NextHopGate {
  private readonly hops = new Map<string, Hop>();
  private readonly now: () => number;

  constructor(private readonly options: NextHopGateOptions) {
    this.now = options.now ?? Date.now;
  }

  /**
   * Runs `attempt` when the next hop has room, or answers a {@link NextHopResting} without running
   * it while the hop rests. `attempt` reports whether it got a connection.
   */
  async run<T>(nextHop: string, attempt: () => Promise<{ value: T; report: AttemptReport }>): Promise<T | NextHopResting> {
    let hop: Hop;
    while (true) {
      // Looked up again after each wait: the hop may have been forgotten meanwhile.
      hop = this.hop(nextHop);
      const resting = this.resting(nextHop, hop);
      if (resting) return resting;
      if (hop.inFlight < this.options.perHop) break;
      const waiting = hop.waiting;
      await new Promise<void>((resolve) => waiting.push(resolve));
    }
    hop.inFlight++;
    try {
      const { value, report } = await attempt();
      if (report.connected) hop.restingUntil = 0;
      else if (hop.restingUntil <= this.now()) {
        hop.restingUntil = this.now() + this.options.restMs;
        hop.cause = report.cause;
        // Everyone waiting learns at once that the hop is resting.
        for (const wake of hop.waiting.splice(0)) wake();
      }
      return value;
    } finally {
      hop.inFlight--;
      hop.waiting.shift()?.();
      if (hop.inFlight === 0 && hop.waiting.length === 0 && hop.restingUntil <= this.now()) this.hops.delete(nextHop);
    }
  }

  /** Next hops resting now (for tests and metrics). */
  restingCount(): number {
    const now = this.now();
    let count = 0;
    for (const hop of this.hops.values()) if (hop.restingUntil > now) count++;
    return count;
  }

  private resting(nextHop: string, hop: Hop): NextHopResting | null {
    return hop.restingUntil > this.now() ? new NextHopResting(nextHop, hop.restingUntil, hop.cause) : null;
  }

  private hop(nextHop: string): Hop {
    let hop = this.hops.get(nextHop);
    if (!hop) {
      if (this.hops.size >= MAX_HOPS) this.forgetIdle();
      hop = { inFlight: 0, waiting: [], restingUntil: 0, cause: '' };
      this.hops.set(nextHop, hop);
    }
    return hop;
  }

  private forgetIdle(): void {
    const now = this.now();
    for (const [key, hop] of this.hops) {
      if (hop.inFlight === 0 && hop.waiting.length === 0 && hop.restingUntil <= now) this.hops.delete(key);
    }
    // Every hop busy or resting: forget the oldest resting ones (the cost is one more timeout each).
    for (const [key, hop] of this.hops) {
      if (this.hops.size < MAX_HOPS) break;
      if (hop.inFlight === 0 && hop.waiting.length === 0) this.hops.delete(key);
    }
  }
}
