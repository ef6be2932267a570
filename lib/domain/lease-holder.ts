// Which of a cluster's agents may heartbeat: the one whose claim to the cluster's
// coordination.k8s.io Lease is not older than the last one accepted. An agent that cannot reach
// its API server keeps heartbeating (its heartbeats say so); when another agent took the Lease
// over meanwhile, the older holder's heartbeats are refused and it steps down.
//
// A claim is ordered by the Lease's creationTimestamp first (set by the API server: a Lease
// deleted and created again starts counting transitions anew, and is newer), then by its
// leaseTransitions (every change of holder counts one). So an agent restarting in the same pod
// (same holder, same count), a takeover (one more transition) and a re-created Lease are never
// refused; an agent that last held the Lease before a takeover always is.

export interface LeaseClaim {
  holder: string;
  transitions: number;
  /** The Lease's creationTimestamp; null when the agent did not report it. */
  createdAt: Date | null;
}

/** `same`: the claim on record; `newer`: record it; `stale`: refuse the heartbeat. */
export type LeaseVerdict = "same" | "newer" | "stale";

export function leaseVerdict(stored: LeaseClaim | null, claim: LeaseClaim): LeaseVerdict {
  if (!stored) return "newer";
  if (stored.createdAt && claim.createdAt && stored.createdAt.getTime() !== claim.createdAt.getTime())
    return claim.createdAt > stored.createdAt ? "newer" : "stale";
  if (claim.transitions !== stored.transitions) return claim.transitions > stored.transitions ? "newer" : "stale";
  // One count, two holders: the API server lets only one write of a count win; the one on record stays.
  if (claim.holder !== stored.holder) return "stale";
  // The same claim, now with the creation time an earlier report lacked: worth recording.
  return !stored.createdAt && claim.createdAt ? "newer" : "same";
}
