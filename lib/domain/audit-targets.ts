// Where an audit entry's target lives in the console, so incident review can follow it. Pure;
// unit-tested in tests/unit/audit-targets.test.ts.

/** The target types the services record, each with the page that shows it (null: no page). */
const TARGET_PAGES: Record<string, ((id: string) => string) | null> = {
  cluster: (id) => `/clusters/${encodeURIComponent(id)}`,
  rollout: (id) => `/rollouts/${encodeURIComponent(id)}`,
  group: () => "/groups",
  policy: () => "/policies",
  registrationToken: () => "/tokens",
  registrationRequest: () => "/registration-requests",
  user: () => "/settings",
  apiKey: () => "/settings",
  ca: () => "/settings",
  settings: () => "/settings",
  clusterApiSource: () => "/cluster-api",
  clusterApiCluster: () => "/cluster-api",
  system: null,
};

/** The console page for a target, or null when there is none (or the type is unknown). */
export function auditTargetHref(type: string | null, id: string | null): string | null {
  if (!type || !id || !Object.prototype.hasOwnProperty.call(TARGET_PAGES, type)) return null;
  return TARGET_PAGES[type]?.(id) ?? null;
}

const TARGET_LABEL: Record<string, string> = {
  cluster: "cluster",
  rollout: "rollout",
  group: "group",
  policy: "policy",
  registrationToken: "token",
  registrationRequest: "registration request",
  user: "user",
  apiKey: "API key",
  ca: "fleet CA",
  settings: "settings",
  clusterApiSource: "Cluster API source",
  clusterApiCluster: "CAPI cluster",
  system: "system",
};

/** "token", "API key": a target type in words. */
export function auditTargetLabel(type: string): string {
  return TARGET_LABEL[type] ?? type;
}
