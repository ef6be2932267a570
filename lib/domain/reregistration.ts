// Who may register a name that already belongs to a cluster (docs/protocol.md, "Re-registration").
// The name and the CA fingerprint are public, so neither is proof; what is:
//  - keptKey: the CSR's key is the key of the cluster's current or last certificate, and an
//    operator did not revoke that certificate. Any valid token, even exhausted; no use consumed
//    (an agent retrying after a lost answer keeps its key).
//  - boundToken: the token was minted for this cluster (re-enrolment, or claiming a pre-created
//    cluster); consumes one use.

export type ReregistrationProof = "keptKey" | "boundToken";

/**
 * Revocation reasons written by rotation and re-registration: the certificate was replaced, not
 * distrusted, so its key still proves the agent. Operators' revocations ("revoked") and
 * deregistration ("deregistered") end that trust.
 */
export const SUPERSEDED_REASON = "superseded";

export type CertificateFacts = {
  serial: string;
  createdAt: Date;
  revokedAt: Date | null;
  notAfter: Date;
  /** RevokedCertificate.reason when revoked; null when not (or when no reason was recorded). */
  revokedReason: string | null;
};

/**
 * The certificates whose key proves the agent: every current (not revoked) one, and the newest
 * (which may have been superseded, e.g. by a registration whose answer the agent never got),
 * unless an operator revoked it. A revoked certificate without a recorded reason does not count,
 * nor one that expired longer ago than the renewal grace (past it, docs/protocol.md asks for a bound
 * re-enrolment token, as rotate does).
 */
export function keptKeyCandidates<C extends CertificateFacts>(
  certificates: readonly C[],
  renewal: { now: Date; graceDays: number },
): C[] {
  const oldestRenewable = renewal.now.getTime() - renewal.graceDays * 86_400_000;
  const newest = certificates.reduce<C | null>((a, c) => (!a || c.createdAt.getTime() > a.createdAt.getTime() ? c : a), null);
  return certificates.filter(
    (c) =>
      c.notAfter.getTime() > oldestRenewable && (c.revokedAt === null || (c === newest && c.revokedReason === SUPERSEDED_REASON)),
  );
}

export type ProofFacts = {
  /** The token is bound to this very cluster. */
  boundToCluster: boolean;
  /** The token has a use left (it is valid otherwise: revoked and expired tokens never get here). */
  tokenHasUses: boolean;
  /** The CSR's key is one of keptKeyCandidates. */
  keptKey: boolean;
};

/**
 * The proof a re-registration rests on, or why there is none. A bound token with a use left is
 * spent first (so it cannot be replayed later); once spent, a retry with the same key is the
 * kept-key case and costs nothing.
 */
export function reregistrationProof(
  f: ProofFacts,
): { proof: ReregistrationProof; consumesUse: boolean } | { refused: "no_proof" | "token_exhausted" } {
  if (f.boundToCluster && f.tokenHasUses) return { proof: "boundToken", consumesUse: true };
  if (f.keptKey) return { proof: "keptKey", consumesUse: false };
  if (f.boundToCluster) return { refused: "token_exhausted" };
  return { refused: "no_proof" };
}
