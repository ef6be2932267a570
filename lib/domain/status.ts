// Cluster status as a pure function of stored facts (docs/protocol.md, Status), so every instance
// of the app computes the same answer. The rule is one ordered table (STATUS_RULES): the first
// row whose conditions all hold names the status. The TypeScript below, the SQL filter and CASE
// column (lib/server/clusters/status-sql.ts) and the status sweeper's query are all read from
// it, and a property test compares the SQL with the TypeScript on random facts.

/** Every status a cluster can have, in the order the console lists them: health, then lifecycle. */
export const CLUSTER_STATUSES = ["Ready", "NotReady", "Pending", "Draining", "Deregistering", "Provisioning"] as const;
export type ClusterStatus = (typeof CLUSTER_STATUSES)[number];
export const HEALTH_STATUSES = ["Pending", "Ready", "NotReady"] as const satisfies readonly ClusterStatus[];
export type HealthStatus = (typeof HEALTH_STATUSES)[number];

export const LIFECYCLE_PHASES = ["Provisioning", "Registration", "Active", "Upgrading", "Draining", "Deregistration"] as const;
export type Phase = (typeof LIFECYCLE_PHASES)[number];

export type StatusFacts = {
  phase: string;
  lastHeartbeatAt: Date | null;
  apiServerHealth: string | null;
};

/** One fact a rule reads; each has a TypeScript and an SQL form that must agree. */
export type StatusCondition =
  | { fact: "phase"; is: Phase }
  /** no heartbeat has ever arrived */
  | { fact: "heartbeat"; is: "missing" }
  /** the last heartbeat is at most the NotReady threshold old */
  | { fact: "heartbeat"; is: "fresh" }
  /** the agent does not report its apiServer down (unknown counts as not down) */
  | { fact: "apiServer"; is: "notDown" };

export type StatusRule = { readonly status: ClusterStatus; readonly when: readonly StatusCondition[] };

/**
 * The status rule, in order: lifecycle phases override heartbeat health. The last row has no
 * condition, so every cluster gets a status.
 */
export const STATUS_RULES: readonly StatusRule[] = [
  { status: "Draining", when: [{ fact: "phase", is: "Draining" }] },
  { status: "Deregistering", when: [{ fact: "phase", is: "Deregistration" }] },
  { status: "Provisioning", when: [{ fact: "phase", is: "Provisioning" }] },
  { status: "Pending", when: [{ fact: "heartbeat", is: "missing" }] },
  {
    status: "Ready",
    when: [
      { fact: "heartbeat", is: "fresh" },
      { fact: "apiServer", is: "notDown" },
    ],
  },
  { status: "NotReady", when: [] },
];

export const isHealthStatus = (s: string): s is HealthStatus => (HEALTH_STATUSES as readonly string[]).includes(s);

/** The rows that judge heartbeat health alone (what the sweeper records). */
export const HEALTH_RULES: readonly StatusRule[] = STATUS_RULES.filter((r) => isHealthStatus(r.status));

/** The lifecycle phases whose status overrides heartbeat health (Draining, Deregistration, Provisioning). */
export const STATUS_OVERRIDE_PHASES: readonly Phase[] = STATUS_RULES.filter((r) => !isHealthStatus(r.status)).flatMap((r) =>
  r.when.flatMap((c) => (c.fact === "phase" ? [c.is] : [])),
);

export function conditionHolds(c: StatusCondition, f: StatusFacts, now: Date, thresholdSeconds: number): boolean {
  switch (c.fact) {
    case "phase":
      return f.phase === c.is;
    case "heartbeat":
      if (c.is === "missing") return f.lastHeartbeatAt === null;
      return f.lastHeartbeatAt !== null && now.getTime() - f.lastHeartbeatAt.getTime() <= thresholdSeconds * 1000;
    case "apiServer":
      return f.apiServerHealth !== "down";
  }
}

function firstMatch<S extends ClusterStatus>(
  rules: readonly StatusRule[],
  f: StatusFacts,
  now: Date,
  thresholdSeconds: number,
): S {
  const rule = rules.find((r) => r.when.every((c) => conditionHolds(c, f, now, thresholdSeconds)));
  if (!rule) throw new Error("the status rules end with an unconditional row");
  return rule.status as S;
}

/** Ready / NotReady / Pending from heartbeat facts alone (lifecycle phases ignored). */
export function healthStatus(f: StatusFacts, now: Date, thresholdSeconds: number): HealthStatus {
  return firstMatch<HealthStatus>(HEALTH_RULES, f, now, thresholdSeconds);
}

/** The status shown and served: lifecycle states override heartbeat health. */
export function clusterStatus(f: StatusFacts, now: Date, thresholdSeconds: number): ClusterStatus {
  return firstMatch<ClusterStatus>(STATUS_RULES, f, now, thresholdSeconds);
}

/**
 * The status once heartbeat health is known to be `health` (what a sweeper's transition tells the
 * console): the table read from the top, where the rows ahead of the health rows decide by phase.
 */
export function statusWithHealth(phase: string, health: HealthStatus): ClusterStatus {
  for (const rule of STATUS_RULES) {
    if (isHealthStatus(rule.status)) return health;
    if (rule.when.every((c) => c.fact === "phase" && c.is === phase)) return rule.status;
  }
  return health;
}

/** Why a cluster moved between health statuses, in words for the event log. */
export function transitionReason(from: HealthStatus, to: HealthStatus, f: StatusFacts, thresholdSeconds: number): string {
  if (to === "Ready") return from === "Pending" ? "first heartbeat" : "recovered: heartbeats arriving and apiServer not down";
  if (to === "NotReady") {
    if (f.apiServerHealth === "down" && f.lastHeartbeatAt) return "agent reports apiServer down";
    return `no heartbeat for more than ${thresholdSeconds}s (threshold passed)`;
  }
  return "waiting for the first heartbeat";
}
