import "server-only";
import type { Requirement, Selector } from "@/lib/domain/selector";
import {
  FLAPPING_WINDOW_MS,
  HEALTH_FILTER_STATUS,
  PROVISIONING_PHASE,
  SAME_CLUSTER_IGNORED_PHASES,
  type EnrollmentFilter,
  type HealthFilter,
  type SameClusterRef,
} from "@/lib/domain/cluster-reason";
import { HEALTH_RULES, type ClusterStatus } from "@/lib/domain/status";
import { BLOCKED_ONLY_WITHOUT, CHECKLIST_KEYS, type ChecklistKey } from "@/lib/domain/enrollment";
import { DEFAULT_SETTINGS } from "@/lib/domain/settings";
import type { ListClustersQuery } from "@/lib/contracts/clusters";
import { dialect } from "@/lib/server/db/client";
import { columns, list, queryRows, raw, sql, Sql } from "@/lib/server/db/sql";
import { asDate } from "@/lib/server/db/driver-values";
import { conditionSql, cutoff, ruleCondition, statusColumn, statusCondition } from "./status-sql";

// Hand-written SQL for the cluster queries that must stay fast with tens of thousands of clusters
// (a filtered page of 50,000 clusters in a fraction of a page load). Prisma turns each selector term into an
// `IN (SELECT ...)` checked row by row, which costs a Cluster lookup per candidate. Here a selector
// is first resolved to a set of ids with INTERSECT / EXCEPT over the covering
// ClusterLabel(key, value, clusterId) index, never touching a Cluster row; status filters read
// the covering Cluster(phase, lastHeartbeatAt, apiServerHealth) index. Only identifiers and fixed
// keywords are written into the text: every value is a bound parameter.

export type ClusterFilter = {
  selector?: Selector;
  /**
   * The caller's teams' scopes (lib/server/auth/authorize.ts): a cluster passes when one of them
   * matches; an empty list passes none. Undefined: the whole fleet.
   */
  scope?: readonly Selector[];
  status?: ClusterStatus;
  /** heartbeat health (lifecycle phases aside), flapping or degraded (lib/domain/cluster-reason.ts) */
  health?: HealthFilter;
  enrollment?: EnrollmentFilter;
  /** not enrolled, held back by this checklist item (lib/server/lifecycle/enrollment.ts stores each item's state) */
  blockedOn?: ChecklistKey;
  /** free text: part of the name, or the start of the id */
  text?: string;
  /** true: clusters flagged "Same cluster as" (another active cluster reports their UID); false: the others */
  duplicateUid?: boolean;
  /** a node pool on this kubelet version, or on any patch of this minor */
  kubelet?: string;
  /** a node pool of this instance type */
  instanceType?: string;
  /** true: clusters whose snooze is in force (lib/domain/cluster-snooze.ts); false: the others */
  snoozed?: boolean;
  /** the agent's, or Kubernetes', version is this or starts with it (a leading v ignored on both sides) */
  agentVersion?: string;
  kubernetesVersion?: string;
};

/** The cluster row every statement here reads, as `"Cluster" c`; the rest by their own names. */
const cluster = columns("Cluster", "c");
const clusterTable = columns("Cluster");
const label = columns("ClusterLabel");
const event = columns("ClusterEvent");
const pool = columns("NodePool");

export type ClusterSort = ListClustersQuery["sort"];

/** Filtered totals are exact up to this many matches; past it a list says "more than". */
export const TOTAL_CAP = 1_000;

function labelTerm(key: string, values?: string[]): Sql {
  return values
    ? sql`SELECT ${label("clusterId")} FROM ${label.table} WHERE ${label("key")} = ${key} AND ${label("value")} IN (${list(values)})`
    : sql`SELECT ${label("clusterId")} FROM ${label.table} WHERE ${label("key")} = ${key}`;
}

/**
 * The ids of the clusters a selector matches, as one compound SELECT on SQLite: the positive terms
 * intersected (or every cluster when there are none), minus each negative term. As in
 * Kubernetes, `!=` and `notin` also match clusters without the key.
 */
export function selectorIds(selector: Selector): Sql {
  // Each term is an index read of its key (a full one for `key` and `!key`), and on SQLite the
  // whole compound SELECT holds the event loop: a repeated term, or `key` beside `key in (...)`
  // (which already requires the key), adds a read and changes nothing.
  const seen = new Set<string>();
  const inKeys = new Set(selector.filter((r) => r.op === "in").map((r) => r.key));
  const terms = selector.filter((r) => {
    const id = JSON.stringify([r.op, r.key, "values" in r ? [...r.values].sort() : null]);
    if (seen.has(id) || (r.op === "exists" && inKeys.has(r.key))) return false;
    seen.add(id);
    return true;
  });
  if (dialect() === "postgres" && terms.length <= SEMI_JOIN_TERMS) return semiJoinIds(terms);
  const positive = terms.flatMap((r) =>
    r.op === "in" ? [labelTerm(r.key, r.values)] : r.op === "exists" ? [labelTerm(r.key)] : [],
  );
  const negative = terms.flatMap((r) =>
    r.op === "notin" ? [labelTerm(r.key, r.values)] : r.op === "!exists" ? [labelTerm(r.key)] : [],
  );
  // Both engines read compound SELECTs left to right here: INTERSECTs first, then the EXCEPTs.
  const base = positive.length ? Sql.join(positive, " INTERSECT ") : sql`SELECT ${clusterTable("id")} FROM ${clusterTable.table}`;
  return negative.length ? Sql.join([base, ...negative], " EXCEPT ") : base;
}

/** Up to this many terms, a selector is a semi-join on PostgreSQL (semiJoinIds). */
const SEMI_JOIN_TERMS = 4;

/**
 * selectorIds on PostgreSQL, for a selector of a few terms (a team's scope, a typical filter): the
 * first positive term's index range, each other term an (anti) semi-join on it. The planner merges
 * the ranges (each is in clusterId order within one value) and probes the cluster table by key for
 * the few that pass, where INTERSECT hashed every range and then scanned the whole table: the page
 * query of a team of 417 in 10,000 clusters takes 3.7 ms instead of 5.1. With many terms the
 * planner's join search costs more than it saves (bench:selector's 20 terms: list p50 156 ms
 * against 96 ms), so those stay compound SELECTs.
 */
function semiJoinIds(terms: Selector): Sql {
  const first = terms.find((r) => r.op === "in") ?? terms.find((r) => r.op === "exists");
  const l0 = columns("ClusterLabel", "l0");
  const lx = columns("ClusterLabel", "lx");
  const matches = (l: typeof l0, r: Requirement) =>
    "values" in r ? sql`${l("key")} = ${r.key} AND ${l("value")} IN (${list(r.values)})` : sql`${l("key")} = ${r.key}`;
  const others = terms.filter((r) => r !== first);
  const conditions = others.map(
    (r) =>
      sql`${raw(r.op === "in" || r.op === "exists" ? "EXISTS" : "NOT EXISTS")} (SELECT 1 FROM ${lx.table} WHERE ${lx("clusterId")} = ${first ? l0("clusterId") : clusterTable.qualified("id")} AND ${matches(lx, r)})`,
  );
  if (!first)
    return sql`SELECT ${clusterTable("id")} FROM ${clusterTable.table}${conditions.length ? sql` WHERE ${Sql.join(conditions, " AND ")}` : sql``}`;
  return sql`SELECT ${l0("clusterId")} FROM ${l0.table} WHERE ${Sql.join([matches(l0, first), ...conditions], " AND ")}`;
}

/** In one of the teams' scopes: each an index-only id set, as a selector filter is. */
function scopeCondition(scope: readonly Selector[], id: Sql = cluster("id")): Sql {
  if (!scope.length) return sql`1 = 0`;
  return sql`(${Sql.join(
    scope.map((s) => sql`${id} IN (${selectorIds(s)})`),
    " OR ",
  )})`;
}

/** ` AND <in one of the scopes>`, or nothing for the whole fleet (null). */
function andInScope(scope: readonly Selector[] | null | undefined, id: Sql = cluster("id")): Sql {
  return scope ? sql` AND ${scopeCondition(scope, id)}` : sql``;
}

/** The ids of the clusters in one of these scopes, as a sub-select (for rows that name a cluster). */
export function scopeIds(scope: readonly Selector[]): Sql {
  return sql`SELECT ${cluster("id")} FROM ${cluster.table} WHERE ${scopeCondition(scope)}`;
}

/** Ids of the clusters with more than `threshold` status changes in the hour before `now` (the (at) index). */
function flappingIds(now: Date, thresholdPerHour: number): Sql {
  return sql`SELECT ${event("clusterId")} FROM ${event.table} WHERE ${event("at")} >= ${new Date(now.getTime() - FLAPPING_WINDOW_MS)}
    AND ${event("kind")} = 'status' GROUP BY ${event("clusterId")} HAVING count(*) > ${thresholdPerHour}`;
}

/** A health filter (lib/domain/cluster-reason.ts, matchesHealthFilter) in SQL. */
function healthCondition(filter: HealthFilter, now: Date, rules: FilterRules): Sql {
  const status = HEALTH_FILTER_STATUS[filter];
  if (status) return ruleCondition(HEALTH_RULES, status, now, rules.notReadyThresholdSeconds);
  if (filter === "degraded")
    return sql`(${cluster("apiServerHealth")} = 'degraded' AND ${conditionSql({ fact: "heartbeat", is: "fresh" }, cutoff(now, rules.notReadyThresholdSeconds))})`;
  return sql`${cluster("id")} IN (${flappingIds(now, rules.flappingThresholdPerHour)})`;
}

/**
 * `c` shares its kube-system UID with another active cluster (lib/domain/cluster-reason.ts,
 * sameClusterPeers): read from the (clusterUid) index.
 */
function sameClusterCondition(): Sql {
  const other = columns("Cluster", "o");
  const ignored = list(SAME_CLUSTER_IGNORED_PHASES);
  return sql`(${cluster("clusterUid")} IS NOT NULL AND ${cluster("phase")} NOT IN (${ignored}) AND EXISTS (SELECT 1 FROM ${other.table}
    WHERE ${other("clusterUid")} = ${cluster("clusterUid")} AND ${other("id")} <> ${cluster("id")} AND ${other("phase")} NOT IN (${ignored})))`;
}

/**
 * For these clusters, the other active clusters reporting the same UID, by name (the reason's
 * names); with `scope`, only the peers in it (a team member is never told another cluster's name).
 */
export async function sameClusterPeers(
  ids: readonly string[],
  scope: readonly Selector[] | null = null,
): Promise<Map<string, SameClusterRef[]>> {
  if (!ids.length) return new Map();
  const other = columns("Cluster", "o");
  const ignored = list(SAME_CLUSTER_IGNORED_PHASES);
  const rows = await queryRows<{ clusterId: string; id: string; name: string }>(
    sql`SELECT ${cluster("id")} AS "clusterId", ${other("id")} AS "id", ${other("name")} AS "name"
        FROM ${cluster.table} JOIN ${other.table} ON ${other("clusterUid")} = ${cluster("clusterUid")} AND ${other("id")} <> ${cluster("id")}
        WHERE ${cluster("id")} IN (${list(ids)}) AND ${cluster("phase")} NOT IN (${ignored}) AND ${other("phase")} NOT IN (${ignored})
        ORDER BY ${other("name")} ASC, ${other("id")} ASC`,
  );
  // Peers are rare: the scope is asked of the few found, not read whole for every page.
  const visible =
    scope && rows.length
      ? await whichInScope(
          rows.map((r) => r.id),
          scope,
        )
      : null;
  const peers = new Map<string, SameClusterRef[]>();
  for (const r of rows)
    if (!visible || visible.has(r.id)) peers.set(r.clusterId, [...(peers.get(r.clusterId) ?? []), { id: r.id, name: r.name }]);
  return peers;
}

/** Status changes per cluster in the hour before `now`, for these ids (the (clusterId, at) index). */
export async function statusChangesLastHour(ids: readonly string[], now: Date): Promise<Map<string, number>> {
  if (!ids.length) return new Map();
  const rows = await queryRows<{ clusterId: string; n: unknown }>(
    sql`SELECT ${event("clusterId")}, count(*) AS n FROM ${event.table} WHERE ${event("clusterId")} IN (${list(ids)})
        AND ${event("at")} >= ${new Date(now.getTime() - FLAPPING_WINDOW_MS)} AND ${event("kind")} = 'status' GROUP BY ${event("clusterId")}`,
  );
  return new Map(rows.map((r) => [r.clusterId, Number(r.n)]));
}

/**
 * `c`'s snooze is in force at `now` (lib/domain/cluster-snooze.ts, snoozeActive): not yet ended,
 * and neither its status nor its phase recorded since it was given.
 */
export function snoozeActiveCondition(now: Date): Sql {
  return sql`(${cluster("snoozedUntil")} IS NOT NULL AND ${cluster("snoozedAt")} IS NOT NULL AND ${cluster("snoozedUntil")} > ${now}
    AND ${cluster("statusChangedAt")} <= ${cluster("snoozedAt")} AND ${cluster("phaseChangedAt")} <= ${cluster("snoozedAt")})`;
}

/** For filters that read no setting (a selector alone). */
const NO_RULES: FilterRules = { notReadyThresholdSeconds: 0, flappingThresholdPerHour: 0 };

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (ch) => `\\${ch}`);
}

/** The settings a filter reads. */
export type FilterRules = { notReadyThresholdSeconds: number; flappingThresholdPerHour: number };

type VersionColumn = "agentVersion" | "kubernetesVersion";

/** The version filter: `1.30` matches 1.30, 1.30.2 and v1.30.0-gke.1, never 1.3 or 1.300. */
function versionCondition(column: VersionColumn, version: string): Sql {
  const v = version.replace(/^v/, "");
  const bare = sql`ltrim(${cluster(column)}, 'v')`;
  return sql`(${bare} = ${v} OR ${bare} LIKE ${`${escapeLike(v)}.%`} ESCAPE '\\' OR ${bare} LIKE ${`${escapeLike(v)}-%`} ESCAPE '\\')`;
}

/**
 * A version's major, minor and patch as integers (NULL when it has none), so a sort is in version
 * order (1.9 before 1.10), not string order; the text itself breaks ties (pre-releases, suffixes).
 */
function versionParts(column: VersionColumn): Sql[] {
  const col = cluster(column);
  if (dialect() === "postgres")
    return ["^v?(\\d+)", "^v?\\d+\\.(\\d+)", "^v?\\d+\\.\\d+\\.(\\d+)"].map(
      (pattern) => sql`CAST(substring(${col} from ${raw(`'${pattern}'`)}) AS INTEGER)`,
    );
  // SQLite has no regular expressions; CAST reads the leading digits of what follows each dot.
  const s = sql`ltrim(${col}, 'v')`;
  const afterMajor = sql`(CASE WHEN instr(${s}, '.') > 0 THEN substr(${s}, instr(${s}, '.') + 1) END)`;
  const afterMinor = sql`(CASE WHEN instr(${afterMajor}, '.') > 0 THEN substr(${afterMajor}, instr(${afterMajor}, '.') + 1) END)`;
  return [sql`CAST(${s} AS INTEGER)`, sql`CAST(${afterMajor} AS INTEGER)`, sql`CAST(${afterMinor} AS INTEGER)`];
}

/** Not enrolled, held back by this checklist item (lib/server/lifecycle/enrollment.ts stores each item's state). */
function blockedOnCondition(key: ChecklistKey): Sql {
  // The evaluator stores JSON.stringify({ [key]: { state, since } }), so a passing item reads
  // exactly so; a cluster it has not evaluated yet is blocked on everything.
  const passing = (item: ChecklistKey) => `%${JSON.stringify(item)}:{"state":"pass"%`;
  const blocked = sql`${cluster("enrolledAt")} IS NULL AND (${cluster("enrollment")} IS NULL OR ${cluster("enrollment")} NOT LIKE ${passing(key)})`;
  // An item another explains counts only while that one passes (BLOCKED_ONLY_WITHOUT).
  const cause = BLOCKED_ONLY_WITHOUT[key];
  return cause ? sql`${blocked} AND ${cluster("enrollment")} LIKE ${passing(cause)}` : blocked;
}

function whereClause(filter: ClusterFilter, now: Date, rules: FilterRules): Sql {
  const thresholdSeconds = rules.notReadyThresholdSeconds;
  const terms: Sql[] = [];
  if (filter.selector?.length) terms.push(sql`${cluster("id")} IN (${selectorIds(filter.selector)})`);
  if (filter.scope) terms.push(scopeCondition(filter.scope));
  if (filter.status) terms.push(statusCondition(filter.status, now, thresholdSeconds));
  if (filter.health) terms.push(healthCondition(filter.health, now, rules));
  if (filter.blockedOn) terms.push(blockedOnCondition(filter.blockedOn));
  if (filter.duplicateUid !== undefined)
    terms.push(filter.duplicateUid ? sameClusterCondition() : sql`NOT ${sameClusterCondition()}`);
  if (filter.kubelet) {
    // Agents report the kubelet's version as the node does ("v1.31.4"); the capacity page groups by minor.
    const v = filter.kubelet.replace(/^v/, "");
    const patches = `${escapeLike(v)}.%`;
    terms.push(
      sql`${cluster("id")} IN (SELECT ${pool("clusterId")} FROM ${pool.table} WHERE ${pool("kubeletVersion")} IN (${v}, ${`v${v}`})
        OR ${pool("kubeletVersion")} LIKE ${patches} ESCAPE '\\' OR ${pool("kubeletVersion")} LIKE ${`v${patches}`} ESCAPE '\\')`,
    );
  }
  if (filter.instanceType)
    terms.push(
      sql`${cluster("id")} IN (SELECT ${pool("clusterId")} FROM ${pool.table} WHERE ${pool("instanceType")} = ${filter.instanceType})`,
    );
  if (filter.agentVersion) terms.push(versionCondition("agentVersion", filter.agentVersion));
  if (filter.kubernetesVersion) terms.push(versionCondition("kubernetesVersion", filter.kubernetesVersion));
  if (filter.snoozed !== undefined)
    terms.push(filter.snoozed ? snoozeActiveCondition(now) : sql`NOT ${snoozeActiveCondition(now)}`);
  if (filter.enrollment)
    terms.push(
      filter.enrollment === "enrolled" ? sql`${cluster("enrolledAt")} IS NOT NULL` : sql`${cluster("enrolledAt")} IS NULL`,
    );
  if (filter.text) {
    // Names are lowercase DNS labels, so a lowercase match is case-insensitive on both engines.
    const contains = `%${escapeLike(filter.text.toLowerCase())}%`;
    const prefix = `${escapeLike(filter.text)}%`;
    // Owner and notes are free text in any case: lowered like the text.
    terms.push(
      sql`(${cluster("name")} LIKE ${contains} ESCAPE '\\' OR ${cluster("id")} LIKE ${prefix} ESCAPE '\\'
        OR lower(${cluster("owner")}) LIKE ${contains} ESCAPE '\\' OR lower(${cluster("notes")}) LIKE ${contains} ESCAPE '\\')`,
    );
  }
  return terms.length ? sql`WHERE ${Sql.join(terms, " AND ")}` : sql``;
}

/**
 * What a page is ordered by; status is the computed one (the stored column lags behind phases).
 * Times without a value (no heartbeat yet, not NotReady) come last in either direction on both
 * engines (SQLite puts NULL first by default, PostgreSQL last), and the id breaks ties.
 */
function orderBy(sort: ClusterSort, order: "asc" | "desc", now: Date, thresholdSeconds: number): Sql {
  const direction = raw(order === "desc" ? "DESC" : "ASC");
  const nullsLast = (column: Sql) => sql`${column} ${direction} NULLS LAST, ${cluster("id")} ASC`;
  switch (sort) {
    case "name":
      return sql`${cluster("name")} ${direction}, ${cluster("id")} ASC`;
    case "lastHeartbeatAt":
      return nullsLast(sql`${cluster("lastHeartbeatAt")}`);
    case "registeredAt":
      return nullsLast(sql`${cluster("registeredAt")}`);
    case "status":
      return sql`${statusColumn(now, thresholdSeconds)} ${direction}, ${cluster("id")} ASC`;
    case "notReadySince":
      return nullsLast(notReadySinceColumn(now, thresholdSeconds));
    case "agentVersion":
    case "kubernetesVersion":
      return Sql.join(
        [...versionParts(sort), cluster(sort)]
          .map((part) => sql`${part} ${direction} NULLS LAST`)
          .concat(sql`${cluster("id")} ASC`),
        ", ",
      );
  }
}

/** When a NotReady cluster turned NotReady (the list's "NotReady since"); NULL for the others. */
function notReadySinceColumn(now: Date, thresholdSeconds: number): Sql {
  return sql`(CASE WHEN ${statusCondition("NotReady", now, thresholdSeconds)} THEN ${cluster("statusChangedAt")} END)`;
}

async function countOf(q: Sql): Promise<number> {
  const [row] = await queryRows<{ n: unknown }>(q);
  return Number(row?.n ?? 0);
}

export type ClusterPage = { ids: string[]; hasMore: boolean; total: number; totalCapped: boolean };

/**
 * One page of cluster ids in the requested order, and how many match: exact with no filter or
 * a selector alone (counted by the page query itself, from the label index), otherwise exact up
 * to TOTAL_CAP and `totalCapped` past it, so a count never walks the whole fleet.
 */
export async function clusterPage(
  filter: ClusterFilter,
  page: { sort: ClusterSort; order: "asc" | "desc"; offset: number; limit: number },
  now: Date,
  thresholdSeconds: number,
  /** the flapping setting, read only by `health: "flapping"` */
  flappingThresholdPerHour = DEFAULT_SETTINGS.flappingThresholdPerHour,
): Promise<ClusterPage> {
  const where = whereClause(filter, now, { notReadyThresholdSeconds: thresholdSeconds, flappingThresholdPerHour });
  const exact =
    !filter.status &&
    !filter.health &&
    !filter.enrollment &&
    !filter.blockedOn &&
    !filter.text &&
    filter.duplicateUid === undefined &&
    !filter.kubelet &&
    !filter.instanceType &&
    filter.snoozed === undefined &&
    !filter.agentVersion &&
    !filter.kubernetesVersion;
  // A selector's matches are counted in the same pass that finds them; a plain count(*) of the
  // whole table is cheaper than a window over it. A team's scope bounds every query of its
  // members: counted in the same pass too, whatever else filters, so the scope's label sets are
  // read once per page, not twice (bench:list).
  const windowed = Boolean(filter.scope) || (exact && Boolean(filter.selector?.length));
  const pageQuery = queryRows<{ id: string; total: unknown }>(
    sql`SELECT ${cluster("id")}, ${raw(windowed ? "count(*) OVER ()" : "0")} AS total FROM ${cluster.table} ${where}
        ORDER BY ${orderBy(page.sort, page.order, now, thresholdSeconds)}
        LIMIT ${page.limit + 1} OFFSET ${page.offset}`,
  );
  // Run beside the page query (on PostgreSQL that is another connection of the pool).
  const countQuery = windowed
    ? null
    : exact
      ? countOf(sql`SELECT count(*) AS n FROM ${cluster.table} ${where}`)
      : countOf(sql`SELECT count(*) AS n FROM (SELECT 1 AS one FROM ${cluster.table} ${where} LIMIT ${TOTAL_CAP + 1}) m`);
  const [rows, counted] = await Promise.all([pageQuery, countQuery]);
  // A window count comes with the rows; past the last page there are none, so count apart.
  const count =
    counted ?? (rows.length ? Number(rows[0]!.total) : await countOf(sql`SELECT count(*) AS n FROM ${cluster.table} ${where}`));
  const capped = count > TOTAL_CAP && !exact;
  return {
    ids: rows.slice(0, page.limit).map((r) => r.id),
    hasMore: rows.length > page.limit,
    total: capped ? TOTAL_CAP : count,
    totalCapped: capped,
  };
}

/**
 * The ids of every cluster a filter matches, in the requested order, at most `limit` (callers
 * ask for one more than they accept to tell "too many"). For exports and "all matching" bulk
 * actions: the filter is evaluated when they run.
 */
export async function filteredIds(
  filter: ClusterFilter,
  order: { sort: ClusterSort; order: "asc" | "desc" },
  limit: number,
  now: Date,
  rules: FilterRules,
): Promise<string[]> {
  const rows = await queryRows<{ id: string }>(
    sql`SELECT ${cluster("id")} FROM ${cluster.table} ${whereClause(filter, now, rules)}
        ORDER BY ${orderBy(order.sort, order.order, now, rules.notReadyThresholdSeconds)}
        LIMIT ${limit}`,
  );
  return rows.map((r) => r.id);
}

/** How many clusters a filter matches, exactly (a team's bulk action counts those its scopes leave out). */
export async function countFiltered(filter: ClusterFilter, now: Date, rules: FilterRules): Promise<number> {
  return countOf(sql`SELECT count(*) AS n FROM ${cluster.table} ${whereClause(filter, now, rules)}`);
}

/**
 * Every cluster a selector matches (within one of `scope`'s selectors, when given), by name, with
 * its agent version (a rollout plans over all of them).
 */
export async function matchingClusters(
  selector: Selector,
  scope?: readonly Selector[],
): Promise<{ id: string; agentVersion: string | null }[]> {
  return queryRows<{ id: string; agentVersion: string | null }>(
    sql`SELECT ${cluster("id")}, ${cluster("agentVersion")} FROM ${cluster.table} ${whereClause({ selector, ...(scope ? { scope } : {}) }, new Date(), NO_RULES)} ORDER BY ${cluster("name")} ASC, ${cluster("id")} ASC`,
  );
}

/** How many clusters match a health filter (the Overview's flapping and degraded counts), within `scope` when one is given. */
export async function countHealth(
  health: HealthFilter,
  now: Date,
  rules: FilterRules,
  scope: readonly Selector[] | null = null,
): Promise<number> {
  return countOf(
    sql`SELECT count(*) AS n FROM ${cluster.table} ${whereClause({ health, ...(scope ? { scope } : {}) }, now, rules)}`,
  );
}

/**
 * How many clusters are flagged "Same cluster as", and up to `limit` of their ids by UID then name
 * (the Overview's needs attention: snoozed clusters are left out).
 */
export async function sameClusterAttention(
  limit: number,
  now = new Date(),
  scope: readonly Selector[] | null = null,
): Promise<{ count: number; ids: string[] }> {
  const where = sql`WHERE ${sameClusterCondition()} AND NOT ${snoozeActiveCondition(now)}${andInScope(scope)}`;
  const [count, rows] = await Promise.all([
    countOf(sql`SELECT count(*) AS n FROM ${cluster.table} ${where}`),
    queryRows<{ id: string }>(
      sql`SELECT ${cluster("id")} FROM ${cluster.table} ${where} ORDER BY ${cluster("clusterUid")} ASC, ${cluster("name")} ASC LIMIT ${limit}`,
    ),
  ]);
  return { count, ids: rows.map((r) => r.id) };
}

/** Ids of up to `limit` NotReady clusters, NotReady the longest first (the Overview's list; snoozed ones are left out). */
export async function longestNotReady(
  now: Date,
  thresholdSeconds: number,
  limit: number,
  scope: readonly Selector[] | null = null,
): Promise<string[]> {
  const rows = await queryRows<{ id: string }>(
    sql`SELECT ${cluster("id")} FROM ${cluster.table} WHERE ${statusCondition("NotReady", now, thresholdSeconds)} AND NOT ${snoozeActiveCondition(now)}${andInScope(scope)}
        ORDER BY ${cluster("statusChangedAt")} ASC, ${cluster("id")} ASC LIMIT ${limit}`,
  );
  return rows.map((r) => r.id);
}

/**
 * Past this many clusters to walk in name order (probing each one's labels) for `limit` answers,
 * missingLabel reads the whole fleet once instead (~0.3 s at 100,000 on PostgreSQL here).
 */
const NAME_WALK_LIMIT = 20_000;

/**
 * Ids of up to `limit` clusters, by name, without a non-empty `key` label (snoozed ones left out).
 * Fleet-wide, it first counts the clusters lacking the label from two indexes: in a fleet that
 * has it everywhere (required labels are enforced at registration) that is all it reads. When
 * many lack it, walking the name index finds `limit` of them within a few rows each; when only a
 * few do, that walk would cross the whole fleet, so the set difference is read instead.
 */
export async function missingLabel(
  key: string,
  limit: number,
  now = new Date(),
  scope: readonly Selector[] | null = null,
): Promise<string[]> {
  const labelled = sql`${label.table} WHERE ${label("key")} = ${key} AND ${label("value")} <> ''`;
  let walkNames = false;
  if (!scope) {
    const [row] = await queryRows<{ total: unknown; labelled: unknown }>(
      sql`SELECT (SELECT count(*) FROM ${clusterTable.table}) AS total, (SELECT count(*) FROM ${labelled}) AS labelled`,
    );
    const total = Number(row?.total ?? 0);
    // Labels belong to clusters (deleted with them): the difference is exact.
    const missing = total - Number(row?.labelled ?? 0);
    if (missing <= 0) return [];
    walkNames = (limit * total) / missing <= NAME_WALK_LIMIT;
  }
  const lacking = walkNames
    ? sql`NOT EXISTS (SELECT 1 FROM ${labelled} AND ${label.qualified("clusterId")} = ${cluster("id")})`
    : sql`${cluster("id")} IN (SELECT ${clusterTable("id")} FROM ${clusterTable.table} EXCEPT SELECT ${label("clusterId")} FROM ${labelled})`;
  const rows = await queryRows<{ id: string }>(
    sql`SELECT ${cluster("id")} FROM ${cluster.table}
        WHERE NOT ${snoozeActiveCondition(now)}${andInScope(scope)} AND ${lacking}
        ORDER BY ${cluster("name")} ASC LIMIT ${limit}`,
  );
  return rows.map((r) => r.id);
}

/** How many clusters are snoozed now, and up to `limit` of their ids, the snooze ending soonest first (the Overview's). */
export async function snoozedClusters(
  limit: number,
  now: Date,
  scope: readonly Selector[] | null = null,
): Promise<{ count: number; ids: string[] }> {
  const where = sql`WHERE ${snoozeActiveCondition(now)}${andInScope(scope)}`;
  const [count, rows] = await Promise.all([
    countOf(sql`SELECT count(*) AS n FROM ${cluster.table} ${where}`),
    queryRows<{ id: string }>(
      sql`SELECT ${cluster("id")} FROM ${cluster.table} ${where} ORDER BY ${cluster("snoozedUntil")} ASC, ${cluster("id")} ASC LIMIT ${limit}`,
    ),
  ]);
  return { count, ids: rows.map((r) => r.id) };
}

/**
 * `c` has been in phase Provisioning for longer than `thresholdMinutes` at `now`
 * (lib/domain/cluster-reason.ts, isProvisioningOverdue).
 */
export function provisioningOverdueCondition(now: Date, thresholdMinutes: number): Sql {
  return sql`(${cluster("phase")} = ${PROVISIONING_PHASE} AND ${cluster("phaseChangedAt")} < ${new Date(now.getTime() - thresholdMinutes * 60_000)})`;
}

/**
 * The clusters in phase Provisioning now, within `scope` when one is given (the Overview's): how
 * many, how many for longer than the threshold, and up to `limit` of those, the longest first.
 */
export async function provisioningNow(
  now: Date,
  thresholdMinutes: number,
  limit: number,
  scope: readonly Selector[] | null = null,
): Promise<{ provisioning: number; overdue: number; overdueIds: string[] }> {
  const overdue = provisioningOverdueCondition(now, thresholdMinutes);
  const [counts, rows] = await Promise.all([
    queryRows<{ n: unknown; overdue: unknown }>(
      sql`SELECT count(*) AS n, sum(CASE WHEN ${overdue} THEN 1 ELSE 0 END) AS overdue FROM ${cluster.table}
          WHERE ${cluster("phase")} = ${PROVISIONING_PHASE}${andInScope(scope)}`,
    ),
    queryRows<{ id: string }>(
      sql`SELECT ${cluster("id")} FROM ${cluster.table} WHERE ${overdue}${andInScope(scope)}
          ORDER BY ${cluster("phaseChangedAt")} ASC, ${cluster("id")} ASC LIMIT ${limit}`,
    ),
  ]);
  return {
    provisioning: Number(counts[0]?.n ?? 0),
    overdue: Number(counts[0]?.overdue ?? 0),
    overdueIds: rows.map((r) => r.id),
  };
}

/**
 * For each cluster pre-created since `start` that has registered since (within `scope` when one is
 * given), how long that took in milliseconds: from its entry into Provisioning, as its history
 * records it, to its registration. Read from the history's (at) index, so only the window's
 * events are read, not every cluster; retention keeps at least a day of history, the window's length.
 */
export async function provisioningDurations(start: Date, scope: readonly Selector[] | null = null): Promise<number[]> {
  const e = columns("ClusterEvent", "e");
  const rows = await queryRows<{ precreatedAt: unknown; registeredAt: unknown }>(
    sql`SELECT min(${e("at")}) AS "precreatedAt", ${cluster("registeredAt")} AS "registeredAt"
        FROM ${e.table} JOIN ${cluster.table} ON ${cluster("id")} = ${e("clusterId")}
        WHERE ${e("at")} >= ${start} AND ${e("kind")} = 'phase' AND ${e("toValue")} = ${PROVISIONING_PHASE}
          AND ${cluster("registeredAt")} IS NOT NULL${andInScope(scope)}
        GROUP BY ${cluster("id")}, ${cluster("registeredAt")}`,
  );
  return rows.map((r) => asDate(r.registeredAt)!.getTime() - asDate(r.precreatedAt)!.getTime());
}

/** Clusters by computed status in one pass, optionally within a selector, and within `scope` when one is given. */
export async function countByStatus(
  now: Date,
  thresholdSeconds: number,
  selector?: Selector,
  scope: readonly Selector[] | null = null,
): Promise<Record<ClusterStatus, number>> {
  const where = whereClause({ selector, ...(scope ? { scope } : {}) }, now, NO_RULES);
  const rows = await queryRows<{ status: ClusterStatus; n: unknown }>(
    sql`SELECT s.status, count(*) AS n FROM (SELECT ${statusColumn(now, thresholdSeconds)} AS status FROM ${cluster.table} ${where}) s GROUP BY s.status`,
  );
  const counts: Record<ClusterStatus, number> = {
    Pending: 0,
    Ready: 0,
    NotReady: 0,
    Draining: 0,
    Deregistering: 0,
    Provisioning: 0,
  };
  for (const r of rows) counts[r.status] = Number(r.n);
  return counts;
}

/**
 * The clusters a selector matches and `not` does not (a scope change's entering or leaving
 * clusters): how many, and the first `limit` names in name order.
 */
export async function selectorSample(
  selector: Selector,
  limit: number,
  not?: Selector,
): Promise<{ count: number; names: string[] }> {
  const where = sql`WHERE ${cluster("id")} IN (${selectorIds(selector)})${
    not ? sql` AND ${cluster("id")} NOT IN (${selectorIds(not)})` : sql``
  }`;
  const [count, rows] = await Promise.all([
    countOf(sql`SELECT count(*) AS n FROM ${cluster.table} ${where}`),
    queryRows<{ name: string }>(
      sql`SELECT ${cluster("name")} FROM ${cluster.table} ${where} ORDER BY ${cluster("name")} ASC LIMIT ${limit}`,
    ),
  ]);
  return { count, names: rows.map((r) => r.name) };
}

/** Which of these clusters are in one of the scopes. */
async function whichInScope(ids: readonly string[], scope: readonly Selector[]): Promise<Set<string>> {
  const rows = await queryRows<{ id: string }>(
    sql`SELECT ${cluster("id")} FROM ${cluster.table} WHERE ${cluster("id")} IN (${list([...new Set(ids)])}) AND ${scopeCondition(scope)}`,
  );
  return new Set(rows.map((r) => r.id));
}

/** The ids of the clusters in one of these scopes (a team member's aggregates filter by it). */
export async function clusterIdsInScope(scope: readonly Selector[]): Promise<Set<string>> {
  const rows = await queryRows<{ id: string }>(sql`SELECT ${cluster("id")} FROM ${cluster.table} WHERE ${scopeCondition(scope)}`);
  return new Set(rows.map((r) => r.id));
}

/** Every label key and value with its cluster count, over the clusters in these scopes only. */
export async function labelCountsInScope(scope: readonly Selector[]): Promise<{ key: string; value: string; count: number }[]> {
  const rows = await queryRows<{ key: string; value: string; n: unknown }>(
    sql`SELECT ${label("key")}, ${label("value")}, count(*) AS n FROM ${label.table}
        WHERE ${label("clusterId")} IN (SELECT ${cluster("id")} FROM ${cluster.table} WHERE ${scopeCondition(scope)})
        GROUP BY ${label("key")}, ${label("value")}`,
  );
  return rows.map((r) => ({ key: r.key, value: r.value, count: Number(r.n) }));
}

/** Clusters by agent or Kubernetes version (versions reported only), within these scopes. */
export async function versionCountsInScope(
  column: "agentVersion" | "kubernetesVersion",
  scope: readonly Selector[],
): Promise<{ version: string; count: number }[]> {
  const rows = await queryRows<{ version: string; n: unknown }>(
    sql`SELECT ${cluster(column)} AS version, count(*) AS n FROM ${cluster.table}
        WHERE ${cluster(column)} IS NOT NULL AND ${scopeCondition(scope)} GROUP BY ${cluster(column)}`,
  );
  return rows.map((r) => ({ version: r.version, count: Number(r.n) }));
}

/**
 * The enrollment figures of the clusters in these scopes, read from each cluster's stored
 * checklist the way the list's `enrollment` and `blockedOn` filters read it (so each number is
 * the list its link opens), in one pass: how many, how many enrolled, how many each item holds back.
 */
export async function enrollmentInScope(
  scope: readonly Selector[],
): Promise<{ total: number; enrolled: number; blockedBy: Partial<Record<ChecklistKey, number>> }> {
  const blocked = CHECKLIST_KEYS.map(
    (key, i) => sql`sum(CASE WHEN ${blockedOnCondition(key)} THEN 1 ELSE 0 END) AS ${raw(`b${i}`)}`,
  );
  const [row] = await queryRows<Record<string, unknown>>(
    sql`SELECT count(*) AS total, sum(CASE WHEN ${cluster("enrolledAt")} IS NOT NULL THEN 1 ELSE 0 END) AS enrolled, ${Sql.join(blocked, ", ")}
        FROM ${cluster.table} WHERE ${scopeCondition(scope)}`,
  );
  const blockedBy: Partial<Record<ChecklistKey, number>> = {};
  CHECKLIST_KEYS.forEach((key, i) => {
    const n = Number(row?.[`b${i}`] ?? 0);
    if (n > 0) blockedBy[key] = n;
  });
  return { total: Number(row?.total ?? 0), enrolled: Number(row?.enrolled ?? 0), blockedBy };
}
