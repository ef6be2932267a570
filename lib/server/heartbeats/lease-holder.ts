import "server-only";
import type { HeartbeatLease } from "@/lib/domain/agent-protocol";
import { leaseVerdict, type LeaseClaim } from "@/lib/domain/lease-holder";
import { ApiError } from "@/lib/server/api/errors";
import { db } from "@/lib/server/db/client";
import { processSingleton } from "@/lib/server/process-singletons";
import { onPrimary } from "@/lib/server/agent-port/workers/primary-calls";

// The Lease claim each cluster's heartbeats carry (lib/domain/lease-holder.ts), kept on the
// cluster's row where every instance reads it. Heartbeats repeat the same claim: the last one
// accepted per cluster is remembered and the row is read only when a claim differs, or once the
// remembered one is older than RECHECK_MS (another instance may have accepted a newer claim
// meanwhile: that bounds how long a stale agent talking to this instance goes on).
const RECHECK_MS = 5 * 60_000;
/** Rounds of read-then-conditional-write when another heartbeat changes the claim in between. */
const ATTEMPTS = 3;

type Seen = { key: string; checkedAt: number };
const seen = () => processSingleton("lease-holder", () => new Map<string, Seen>());

const keyOf = (c: LeaseClaim) => `${c.holder}|${c.transitions}|${c.createdAt?.toISOString() ?? ""}`;

/**
 * Accepts the heartbeat's Lease claim (recording it when newer than the one on record) or throws
 * 409 `stale_lease_holder`. Heartbeats without a claim (agents without a Lease, older agents)
 * are not checked.
 */
export async function checkLeaseHolder(clusterId: string, lease: HeartbeatLease | undefined, now = new Date()): Promise<void> {
  if (!lease) return;
  const claim: LeaseClaim = {
    holder: lease.holder,
    transitions: lease.transitions,
    createdAt: lease.createdAt ? new Date(lease.createdAt) : null,
  };
  const key = keyOf(claim);
  const map = seen();
  const last = map.get(clusterId);
  if (last && last.key === key && now.getTime() - last.checkedAt < RECHECK_MS) return;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const row = await db().cluster.findUnique({
      where: { id: clusterId },
      select: { leaseHolder: true, leaseTransitions: true, leaseCreatedAt: true },
    });
    if (!row) return;
    const stored: LeaseClaim | null =
      row.leaseHolder === null || row.leaseTransitions === null
        ? null
        : { holder: row.leaseHolder, transitions: row.leaseTransitions, createdAt: row.leaseCreatedAt };
    const verdict = leaseVerdict(stored, claim);
    if (verdict === "stale") {
      map.delete(clusterId);
      throw new ApiError(
        "stale_lease_holder",
        `Another agent of this cluster (${stored!.holder}) took its Lease over since this agent (${claim.holder}) last held it; stop acting for the cluster.`,
      );
    }
    if (verdict === "newer") {
      // Conditional on the claim read: a newer claim written meanwhile makes this match nothing.
      if (!(await storeClaim(clusterId, row, claim))) continue;
    }
    map.set(clusterId, { key, checkedAt: now.getTime() });
    return;
  }
  throw new ApiError("conflict", "The cluster's Lease claim kept changing; retry the heartbeat.");
}

type StoredClaim = { leaseHolder: string | null; leaseTransitions: number | null; leaseCreatedAt: Date | null };

/** Records `claim` unless the row's claim is no longer `read` (a newer one written meanwhile). */
const storeClaim = onPrimary("store-lease-claim", async (clusterId: string, read: StoredClaim, claim: LeaseClaim) => {
  const written = await db().cluster.updateMany({
    where: { id: clusterId, ...read },
    data: { leaseHolder: claim.holder, leaseTransitions: claim.transitions, leaseCreatedAt: claim.createdAt },
  });
  return written.count === 1;
});
