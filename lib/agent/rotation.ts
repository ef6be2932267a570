import type { AgentContext } from "./agent-context";
import { AgentExit } from "./agent-options";
import { buildCsr, certificateMatchesKey, firstPemBlock, issuedBy, parsedCertificate } from "./csr";
import { BadResponseError, describeFailure } from "./errors";
import { requestJson } from "./http";
import { AGENT_API, isObject } from "./protocol";

// When to rotate: once a third (or less) of the certificate's lifetime remains. That leaves
// two thirds of the lifetime's worth of retries if the server is unreachable at that moment.

export interface CertLifetime {
  notBefore: number;
  notAfter: number;
  serial: string;
}

export function certificateLifetime(certPem: string): CertLifetime {
  const cert = parsedCertificate(certPem);
  return { notBefore: Date.parse(cert.validFrom), notAfter: Date.parse(cert.validTo), serial: cert.serialNumber };
}

export const ROTATE_WHEN_REMAINING = 1 / 3;

/** The moment from which rotation is due. */
export function rotationDueAt(lifetime: Pick<CertLifetime, "notBefore" | "notAfter">, fraction = ROTATE_WHEN_REMAINING): number {
  return lifetime.notAfter - (lifetime.notAfter - lifetime.notBefore) * fraction;
}

export function shouldRotate(
  lifetime: Pick<CertLifetime, "notBefore" | "notAfter">,
  now: number,
  fraction = ROTATE_WHEN_REMAINING,
): boolean {
  return now >= rotationDueAt(lifetime, fraction);
}

/**
 * Renews the agent's certificate over mutual TLS when a third of its lifetime remains, or at
 * once when the control plane asks (a fleet CA rollover). A failure keeps the current
 * certificate and tries again later: two thirds of the lifetime are left for retries.
 */
export class CertificateRotation {
  private failures = 0;
  private nextAttempt = 0;
  /** A `rotate` directive (fleet CA rollover) asked for a new certificate now. */
  private requested = false;

  constructor(private readonly ctx: AgentContext) {}

  /** The `rotate` directive: a new certificate at the next chance. */
  request() {
    this.requested = true;
    this.nextAttempt = 0;
  }

  async maybeRotate(): Promise<void> {
    const state = this.ctx.state;
    const now = this.ctx.clock.now();
    if (!state || !this.ctx.lifetime || now < this.nextAttempt) return;
    if (!this.requested && !shouldRotate(this.ctx.lifetime, now)) return;
    if (!this.requested) {
      this.ctx.emit("info", "ROTATE_DUE", "a third or less of the certificate's lifetime remains: rotating", {
        notAfter: new Date(this.ctx.lifetime.notAfter).toISOString(),
      });
    }
    try {
      const keys = await this.ctx.newKeys();
      const raw = await requestJson(
        this.ctx.server,
        AGENT_API.rotate,
        {
          method: "POST",
          agent: this.ctx.mtls!,
          body: { csr: buildCsr(keys, this.ctx.options.name) },
          timeoutMs: this.ctx.timeoutMs,
          signal: this.ctx.abort.signal,
        },
        now,
      );
      const certificate = isObject(raw) && typeof raw.certificate === "string" ? firstPemBlock(raw.certificate) : null;
      if (!certificate) throw new BadResponseError("rotation answer has no PEM certificate");
      if (!certificateMatchesKey(certificate, keys.privateKeyPem))
        throw new BadResponseError("the rotated certificate does not carry our new key");
      if (!issuedBy(certificate, this.ctx.requireCa()))
        throw new BadResponseError("the rotated certificate is not signed by the trusted fleet CA");
      // Disk first (atomically), then memory: a crash in between restarts with the new pair.
      await this.ctx.options.store.saveIdentity(keys.privateKeyPem, certificate);
      this.ctx.adopt({ ...state, keyPem: keys.privateKeyPem, certPem: certificate });
      this.failures = 0;
      this.requested = false;
      const lifetime = this.ctx.lifetime!;
      this.ctx.emit("info", "ROTATED", "switched to the new certificate", {
        serial: lifetime.serial,
        notAfter: new Date(lifetime.notAfter).toISOString(),
      });
      this.ctx.options.hooks?.onRotated?.({ serial: lifetime.serial, notAfter: lifetime.notAfter });
    } catch (err) {
      if (err instanceof AgentExit) throw err;
      const failure = describeFailure(err, "rotate", this.ctx.server);
      if (this.ctx.stopped || failure.action === "stopped") throw this.ctx.stoppedExit();
      if (failure.action === "deregistered") throw await this.ctx.deregistered(failure, "rotate");
      const retryIn = Math.max(1_000, this.ctx.retryDelay(failure, this.failures++));
      this.nextAttempt = this.ctx.clock.now() + retryIn;
      this.ctx.options.hooks?.onFailure?.(failure, "rotate");
      this.ctx.emit("warn", "ROTATE_FAILED", `certificate rotation failed, keeping the current certificate: ${failure.message}`, {
        cause: failure.code,
        retryIn: `${(retryIn / 1000).toFixed(1)}s`,
      });
    }
  }
}
