// Directives arrive in heartbeat answers and repeat until acknowledged (docs/protocol.md). The agent
// acts on each id once, then keeps listing the id in `acks` until the server stops sending it:
// an ack lost with a failed heartbeat is simply sent again.

export interface Directive {
  id: string;
  type: string;
  [key: string]: unknown;
}

/** Directives from a heartbeat answer; entries without a string id and type are dropped. */
export function parseDirectives(value: unknown): Directive[] {
  if (!Array.isArray(value)) return [];
  return value.filter(
    (d): d is Directive =>
      !!d && typeof d === "object" && typeof (d as Directive).id === "string" && typeof (d as Directive).type === "string",
  );
}

/** A directive parameter, whether the server nests it under `payload` or puts it at the top. */
export function directiveParam(d: Directive, key: string): unknown {
  const payload = d.payload;
  if (payload && typeof payload === "object" && key in payload) return (payload as Record<string, unknown>)[key];
  return d[key];
}

// Protocol-compatible servers accept at most 100 acks of at most 64 characters.
const MAX_ACKS = 100;
const MAX_REMEMBERED = 1000;

export class AckTracker {
  /** id -> time from which its ack may be sent. */
  private pending = new Map<string, number>();
  /** Ids already acted on, so a repeated directive is not applied twice. Bounded, oldest first out. */
  private handled = new Set<string>();

  /** `ackDelayMs` > 0 simulates an agent that acknowledges late (the simulator's "late" fault). */
  constructor(private readonly ackDelayMs = 0) {}

  /**
   * Takes the directives of one heartbeat answer: forgets acks for ids the server no longer
   * sends, schedules acks for the ones it does, and returns those not acted on before.
   */
  observe(directives: Directive[], now: number): Directive[] {
    const present = new Set(directives.map((d) => d.id));
    for (const id of this.pending.keys()) if (!present.has(id)) this.pending.delete(id);
    const fresh: Directive[] = [];
    for (const d of directives) {
      if (!this.pending.has(d.id)) this.pending.set(d.id, this.handled.has(d.id) ? now : now + this.ackDelayMs);
      if (this.handled.has(d.id)) continue;
      this.handled.add(d.id);
      if (this.handled.size > MAX_REMEMBERED) {
        const oldest = this.handled.values().next().value;
        if (oldest !== undefined) this.handled.delete(oldest);
      }
      fresh.push(d);
    }
    return fresh;
  }

  /** Ids to list in the next heartbeat's `acks`. */
  acks(now: number): string[] {
    const out: string[] = [];
    for (const [id, from] of this.pending) {
      if (from <= now && id.length <= 64) out.push(id);
      if (out.length >= MAX_ACKS) break;
    }
    return out;
  }

  isAckDue(id: string, now: number): boolean {
    const from = this.pending.get(id);
    return from !== undefined && from <= now;
  }

  /** When the next withheld ack becomes due, or null. */
  nextDueAt(now: number): number | null {
    let next: number | null = null;
    for (const from of this.pending.values()) if (from > now && (next === null || from < next)) next = from;
    return next;
  }

  get pendingCount() {
    return this.pending.size;
  }
}
