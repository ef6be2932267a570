import "server-only";
import { admissionDecision, type AdmissionLimits } from "@/lib/domain/admission";
import { overloadRetryAfter, SigningBacklog, type RetryAfterPolicy } from "@/lib/domain/overload-retry-after";
import { env } from "@/lib/env";
import { ApiError } from "@/lib/server/api/errors";
import { incCounter } from "@/lib/server/metrics/registry";
import { processSingleton } from "@/lib/server/process-singletons";
import { eventLoopLag } from "./event-loop-lag";

export type AdmissionOutcome = "admitted" | "queued" | "refused" | "lagging";

/**
 * Admission control for the agent port's signing work (register, rotate): at most `maxInFlight`
 * run at once and at most `maxQueued` wait; past that, or while the event loop lags (the rule is
 * lib/domain/admission.ts), the caller hears 503 `overloaded` with Retry-After (docs/protocol.md,
 * "Overload and outages"). A registration wave then slows itself down instead of starving
 * heartbeats, which never pass through here. The Retry-After is the backlog's wait at the recent
 * signing rate, spread per answer (lib/domain/overload-retry-after.ts), so a fleet refused
 * together does not come back together.
 */
export class AdmissionGate {
  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly backlog: SigningBacklog;

  constructor(
    private readonly limits: Omit<AdmissionLimits, "maxEventLoopLagMs"> & {
      maxEventLoopLagMs?: number;
      retryAfter: RetryAfterPolicy;
    },
    private readonly count: (outcome: AdmissionOutcome) => void = () => {},
    private readonly eventLoopLagMs: () => number = () => 0,
    private readonly clock: { now: () => number; random: () => number } = { now: Date.now, random: Math.random },
  ) {
    this.backlog = new SigningBacklog(clock.now());
  }

  /** Runs `work` when a slot is free; throws ApiError("overloaded") when refused. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    const decision = admissionDecision(
      { inFlight: this.inFlight, queued: this.waiting.length, eventLoopLagMs: this.eventLoopLagMs() },
      { ...this.limits, maxEventLoopLagMs: this.limits.maxEventLoopLagMs ?? 0 },
    );
    if (decision === "busy" || decision === "lagging") {
      this.count(decision === "busy" ? "refused" : "lagging");
      const now = this.clock.now();
      const seconds = overloadRetryAfter(
        this.backlog.backlog(now, this.inFlight, this.waiting.length),
        this.limits.retryAfter,
        this.clock.random,
      );
      this.backlog.promise(now, seconds);
      throw new ApiError(
        "overloaded",
        decision === "busy"
          ? "The control plane is busy with other registrations; retry after the delay given."
          : "The control plane is behind on heartbeats; retry after the delay given.",
        undefined,
        { "retry-after": String(seconds) },
      );
    }
    if (decision === "queue") {
      this.count("queued");
      // The finishing request hands its slot over directly (inFlight stays counted), so a
      // newcomer can never overtake the queue.
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.inFlight++;
    }
    this.count("admitted");
    try {
      return await work();
    } finally {
      this.backlog.finish(this.clock.now());
      const next = this.waiting.shift();
      if (next) next();
      else this.inFlight--;
    }
  }

  /** For tests and metrics: requests running and waiting now. */
  get load() {
    return { inFlight: this.inFlight, queued: this.waiting.length };
  }
}

// Answers to one backlog spread over a window half as long again as their wait, which is half the
// backlog's time: with the agents' own jitter on top, a refused wave returns at about the rate it
// is signed, not as one wave (lib/domain/overload-retry-after.ts).
const RETRY_AFTER_SPREAD = 0.5;
const RETRY_AFTER_PACE = 0.5;

/** The process's gate for certificate-signing requests (register and rotate share it: both sign). */
export function signingAdmission(): AdmissionGate {
  return processSingleton("signing-admission", () => {
    const config = env();
    const lag = config.SIGNING_MAX_EVENT_LOOP_LAG_MS > 0 ? eventLoopLag() : null;
    return new AdmissionGate(
      {
        maxInFlight: config.SIGNING_MAX_IN_FLIGHT,
        maxQueued: config.SIGNING_MAX_QUEUED,
        maxEventLoopLagMs: config.SIGNING_MAX_EVENT_LOOP_LAG_MS,
        retryAfter: {
          minSeconds: config.SIGNING_RETRY_AFTER_SECONDS,
          maxSeconds: config.SIGNING_RETRY_AFTER_MAX_SECONDS,
          spread: RETRY_AFTER_SPREAD,
          pace: RETRY_AFTER_PACE,
        },
      },
      (outcome) =>
        incCounter(
          "fleet_signing_admission_total",
          "Registrations and rotations on this instance by admission outcome (queued ones are also counted when admitted; refused: limits full, lagging: event loop behind).",
          { outcome },
        ),
      () => lag?.recentMs() ?? 0,
    );
  });
}
