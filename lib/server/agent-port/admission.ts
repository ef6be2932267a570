import "server-only";
import { admissionDecision, type AdmissionLimits } from "@/lib/domain/admission";
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
 * heartbeats, which never pass through here.
 */
export class AdmissionGate {
  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly limits: Omit<AdmissionLimits, "maxEventLoopLagMs"> & {
      maxEventLoopLagMs?: number;
      retryAfterSeconds: number;
    },
    private readonly count: (outcome: AdmissionOutcome) => void = () => {},
    private readonly eventLoopLagMs: () => number = () => 0,
  ) {}

  /** Runs `work` when a slot is free; throws ApiError("overloaded") when refused. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    const decision = admissionDecision(
      { inFlight: this.inFlight, queued: this.waiting.length, eventLoopLagMs: this.eventLoopLagMs() },
      { ...this.limits, maxEventLoopLagMs: this.limits.maxEventLoopLagMs ?? 0 },
    );
    if (decision === "busy" || decision === "lagging") {
      this.count(decision === "busy" ? "refused" : "lagging");
      throw new ApiError(
        "overloaded",
        decision === "busy"
          ? "The control plane is busy with other registrations; retry after the delay given."
          : "The control plane is behind on heartbeats; retry after the delay given.",
        undefined,
        { "retry-after": String(this.limits.retryAfterSeconds) },
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
        retryAfterSeconds: config.SIGNING_RETRY_AFTER_SECONDS,
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
