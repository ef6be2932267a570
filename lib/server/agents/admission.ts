import "server-only";
import { env } from "@/lib/env";
import { ApiError } from "@/lib/server/api/errors";
import { incCounter } from "@/lib/server/metrics/registry";
import { processSingleton } from "@/lib/server/process-singletons";

/**
 * Admission control for the agent port's signing work (register, rotate): at most `maxInFlight`
 * run at once and at most `maxQueued` wait; past that the caller hears 503 `overloaded` with
 * Retry-After (PROTOCOL.md "Overload"). A registration wave then slows itself down instead of
 * starving heartbeats, which never pass through here.
 */
export class AdmissionGate {
  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly limits: { maxInFlight: number; maxQueued: number; retryAfterSeconds: number },
    private readonly count: (outcome: "admitted" | "queued" | "refused") => void = () => {},
  ) {}

  /** Runs `work` when a slot is free; throws ApiError("overloaded") when the queue is full too. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.inFlight >= this.limits.maxInFlight) {
      if (this.waiting.length >= this.limits.maxQueued) {
        this.count("refused");
        throw new ApiError(
          "overloaded",
          "The control plane is busy with other registrations; retry after the delay given.",
          undefined,
          {
            "retry-after": String(this.limits.retryAfterSeconds),
          },
        );
      }
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
    return new AdmissionGate(
      {
        maxInFlight: config.SIGNING_MAX_IN_FLIGHT,
        maxQueued: config.SIGNING_MAX_QUEUED,
        retryAfterSeconds: config.SIGNING_RETRY_AFTER_SECONDS,
      },
      (outcome) =>
        incCounter(
          "fleet_signing_admission_total",
          "Registrations and rotations on this instance by admission outcome (queued ones are also counted when admitted).",
          { outcome },
        ),
    );
  });
}
