// The console's navigation as each kind of person should see it, in order: what the specs expect,
// written once (the console's own list is lib/domain/page-roles.ts; these are not derived from
// it, so a page appearing where it should not fails a spec).
export const NAV = {
  admin: [
    "Overview",
    "Clusters",
    "Groups",
    "Tokens",
    "Approvals",
    "Policies",
    "Rollouts",
    "Versions",
    "Node pools",
    "Webhooks",
    "Audit log",
    "Teams",
    "Settings",
  ],
  operator: [
    "Overview",
    "Clusters",
    "Groups",
    "Tokens",
    "Approvals",
    "Policies",
    "Rollouts",
    "Versions",
    "Node pools",
    "Audit log",
    "Teams",
  ],
  viewer: ["Overview", "Clusters", "Groups", "Tokens", "Policies", "Rollouts", "Versions", "Node pools", "Teams"],
  /** fleet role none, operator in a team */
  teamOperator: ["Overview", "Clusters", "Tokens", "Approvals", "Rollouts", "Versions", "Node pools", "Audit log", "Teams"],
  /** fleet role none, admin of a team */
  teamAdmin: [
    "Overview",
    "Clusters",
    "Tokens",
    "Approvals",
    "Rollouts",
    "Versions",
    "Node pools",
    "Webhooks",
    "Audit log",
    "Teams",
  ],
} as const satisfies Record<string, readonly string[]>;
