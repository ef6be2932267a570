import "server-only";
import { HEALTH_RULES, STATUS_RULES, type ClusterStatus, type StatusCondition, type StatusRule } from "@/lib/domain/status";
import { columns, queryRows, raw, render, sql, Sql } from "@/lib/server/db/sql";

// The status rule (lib/domain/status.ts, STATUS_RULES) in SQL, generated from the rule table so
// the list's filters, its status column and the sweeper's drift query cannot disagree with
// healthStatus(). Each condition is written so it is never NULL, so `NOT (...)` of an earlier row
// means what it says on both engines.

/** The cluster row every statement here reads, as `"Cluster" c`. */
const cluster = columns("Cluster", "c");
const clusterTable = columns("Cluster");

export function cutoff(now: Date, thresholdSeconds: number): Date {
  return new Date(now.getTime() - thresholdSeconds * 1000);
}

/** A status or phase name from the rule table as an SQL literal (fixed words, never input). */
function word(w: string): Sql {
  if (!/^[A-Za-z]+$/.test(w)) throw new Error(`not a status word: ${w}`);
  return raw(`'${w}'`);
}

export function conditionSql(c: StatusCondition, since: Date): Sql {
  switch (c.fact) {
    case "phase":
      return sql`${cluster("phase")} = ${word(c.is)}`;
    case "heartbeat":
      return c.is === "missing"
        ? sql`${cluster("lastHeartbeatAt")} IS NULL`
        : sql`(${cluster("lastHeartbeatAt")} IS NOT NULL AND ${cluster("lastHeartbeatAt")} >= ${since})`;
    case "apiServer":
      return sql`(${cluster("apiServerHealth")} IS NULL OR ${cluster("apiServerHealth")} <> 'down')`;
  }
}

function allOf(rule: StatusRule, since: Date): Sql {
  return rule.when.length
    ? Sql.join(
        rule.when.map((c) => conditionSql(c, since)),
        " AND ",
      )
    : sql`1 = 1`;
}

const phaseOnly = (rule: StatusRule) => rule.when.length === 1 && rule.when[0]!.fact === "phase";

/** Clusters whose status under `rules` (first matching row wins) is `status` at `now`. */
export function ruleCondition(rules: readonly StatusRule[], status: ClusterStatus, now: Date, thresholdSeconds: number): Sql {
  const at = rules.findIndex((r) => r.status === status);
  if (at < 0) return sql`1 = 0`;
  const since = cutoff(now, thresholdSeconds);
  const earlier = rules.slice(0, at);
  // Earlier rows that only name a phase become one `phase NOT IN (...)`, a read of the covering index.
  const phases = earlier.filter(phaseOnly).map((r) => word((r.when[0] as { is: string }).is));
  const terms = [
    ...(phases.length ? [sql`${cluster("phase")} NOT IN (${Sql.join(phases, ", ")})`] : []),
    ...earlier.filter((r) => !phaseOnly(r)).map((r) => sql`NOT (${allOf(r, since)})`),
    ...(rules[at]!.when.length ? [allOf(rules[at]!, since)] : []),
  ];
  return terms.length ? Sql.join(terms, " AND ") : sql`1 = 1`;
}

/** Clusters whose computed status (lib/domain/status.ts) is `status` at `now`. */
export function statusCondition(status: ClusterStatus, now: Date, thresholdSeconds: number): Sql {
  return ruleCondition(STATUS_RULES, status, now, thresholdSeconds);
}

/** The computed status as a column, from the same rule table. */
export function statusColumn(now: Date, thresholdSeconds: number): Sql {
  const since = cutoff(now, thresholdSeconds);
  const whens: Sql[] = [];
  for (const rule of STATUS_RULES) {
    if (!rule.when.length) return sql`CASE ${Sql.join(whens, " ")} ELSE ${word(rule.status)} END`;
    whens.push(sql`WHEN ${allOf(rule, since)} THEN ${word(rule.status)}`);
  }
  return sql`CASE ${Sql.join(whens, " ")} END`;
}

/**
 * A condition's failure as alternatives, each one never NULL and each a read of a
 * Cluster(status, column) index once `status = ...` is beside it (no NOT around an OR).
 */
function conditionFailsSql(c: StatusCondition, since: Date): Sql[] {
  switch (c.fact) {
    case "phase":
      return [sql`${cluster("phase")} <> ${word(c.is)}`];
    case "heartbeat":
      return c.is === "missing"
        ? [sql`${cluster("lastHeartbeatAt")} IS NOT NULL`]
        : [sql`${cluster("lastHeartbeatAt")} IS NULL`, sql`${cluster("lastHeartbeatAt")} < ${since}`];
    case "apiServer":
      return [sql`${cluster("apiServerHealth")} = 'down'`];
  }
}

/**
 * Ids of up to `limit` clusters whose recorded health status (the sweeper's column) differs from
 * the one their facts give now, from the health rows of the same rule table. A cluster recorded
 * as S has drifted when an earlier row now matches or one of S's own conditions fails; each such
 * case is its own SELECT on `status = S`, so the Cluster(status, lastHeartbeatAt) and
 * (status, apiServerHealth) indexes find only what is due (Ready clusters whose heartbeat just
 * passed the threshold or whose apiServer is down, NotReady ones heartbeating again, Pending ones
 * with a first heartbeat) instead of the sweep reading every cluster every second.
 */
export async function statusDrift(now: Date, thresholdSeconds: number, limit: number): Promise<string[]> {
  const since = cutoff(now, thresholdSeconds);
  const cases = new Map<string, Sql>();
  HEALTH_RULES.forEach((rule, at) => {
    const recorded = sql`${cluster("status")} = ${word(rule.status)}`;
    const drifted = [
      ...HEALTH_RULES.slice(0, at).map((earlier) => allOf(earlier, since)),
      ...rule.when.flatMap((c) => conditionFailsSql(c, since)),
    ];
    for (const condition of drifted) {
      const q = sql`SELECT ${cluster("id")} FROM ${cluster.table} WHERE ${recorded} AND ${condition}`;
      cases.set(render(q, "sqlite") + JSON.stringify(q.params), q);
    }
  });
  const rows = await queryRows<{ id: string }>(
    sql`SELECT ${clusterTable("id")} FROM (${Sql.join([...cases.values()], " UNION ")}) AS due LIMIT ${limit}`,
  );
  return rows.map((r) => r.id);
}
