import "server-only";
import type { Selector } from "@/lib/domain/selector";
import { FLAPPING_WINDOW_MS, HEALTH_FILTER_STATUS, type EnrollmentFilter, type HealthFilter } from "@/lib/domain/cluster-reason";
import { HEALTH_RULES, STATUS_RULES, type ClusterStatus, type StatusCondition, type StatusRule } from "@/lib/domain/status";
import type { ChecklistKey } from "@/lib/domain/enrollment";
import { DEFAULT_SETTINGS } from "@/lib/domain/settings";
import { db, dialect } from "@/lib/server/db/client";

// Hand-written SQL for the cluster queries that must stay fast with tens of thousands of clusters
// (issue 4: a filtered page of 50,000 in <= 100 ms). Prisma turns each selector term into an
// `IN (SELECT ...)` checked row by row, which costs a Cluster lookup per candidate. Here a selector
// is first resolved to a set of ids with INTERSECT / EXCEPT over the covering
// ClusterLabel(key, value, clusterId) index, never touching a Cluster row; status filters read
// the covering Cluster(phase, lastHeartbeatAt, apiServerHealth) index. Only identifiers and fixed
// keywords are written into the text: every value is a bound parameter.

export type ClusterFilter = {
  selector?: Selector;
  status?: ClusterStatus;
  /** heartbeat health (lifecycle phases aside), flapping or degraded (lib/domain/cluster-reason.ts) */
  health?: HealthFilter;
  enrollment?: EnrollmentFilter;
  /** not enrolled, held back by this checklist item (lib/server/lifecycle/enrollment.ts stores each item's state) */
  blockedOn?: ChecklistKey;
  /** free text: part of the name, or the start of the id */
  text?: string;
};

export type ClusterSort = "name" | "lastHeartbeatAt" | "registeredAt" | "status";

/** Filtered totals are exact up to this many matches; past it a list says "more than". */
export const TOTAL_CAP = 1_000;

/** SQL text with `?` placeholders, and their values in order. */
class Sql {
  constructor(
    readonly text: string,
    readonly params: unknown[] = [],
  ) {}
  static join(parts: Sql[], separator: string): Sql {
    return new Sql(
      parts.map((p) => p.text).join(separator),
      parts.flatMap((p) => p.params),
    );
  }
}

function sql(strings: TemplateStringsArray, ...values: (Sql | unknown)[]): Sql {
  let text = strings[0]!;
  const params: unknown[] = [];
  values.forEach((v, i) => {
    if (v instanceof Sql) {
      text += v.text;
      params.push(...v.params);
    } else {
      text += "?";
      params.push(v);
    }
    text += strings[i + 1]!;
  });
  return new Sql(text, params);
}

function list(values: readonly unknown[]): Sql {
  return Sql.join(
    values.map((v) => sql`${v}`),
    ", ",
  );
}

async function query<T>(q: Sql): Promise<T[]> {
  let text = q.text;
  if (dialect() === "postgres") {
    let n = 0;
    text = text.replace(/\?/g, () => `$${++n}`);
  }
  return db().$queryRawUnsafe<T[]>(text, ...q.params);
}

function labelTerm(key: string, values?: string[]): Sql {
  return values
    ? sql`SELECT "clusterId" FROM "ClusterLabel" WHERE "key" = ${key} AND "value" IN (${list(values)})`
    : sql`SELECT "clusterId" FROM "ClusterLabel" WHERE "key" = ${key}`;
}

/**
 * The ids of the clusters a selector matches, as one compound SELECT: the positive terms
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
  const positive = terms.flatMap((r) =>
    r.op === "in" ? [labelTerm(r.key, r.values)] : r.op === "exists" ? [labelTerm(r.key)] : [],
  );
  const negative = terms.flatMap((r) =>
    r.op === "notin" ? [labelTerm(r.key, r.values)] : r.op === "!exists" ? [labelTerm(r.key)] : [],
  );
  // Both engines read compound SELECTs left to right here: INTERSECTs first, then the EXCEPTs.
  const base = positive.length ? Sql.join(positive, " INTERSECT ") : sql`SELECT "id" FROM "Cluster"`;
  return negative.length ? Sql.join([base, ...negative], " EXCEPT ") : base;
}

function cutoff(now: Date, thresholdSeconds: number): Date {
  return new Date(now.getTime() - thresholdSeconds * 1000);
}

// The status rule (lib/domain/status.ts, STATUS_RULES) in SQL. Each condition is written so it is
// never NULL, so `NOT (...)` of an earlier row means what it says on both engines.

/** A status or phase name from the rule table as an SQL literal (fixed words, never input). */
function word(w: string): Sql {
  if (!/^[A-Za-z]+$/.test(w)) throw new Error(`not a status word: ${w}`);
  return new Sql(`'${w}'`);
}

function conditionSql(c: StatusCondition, since: Date): Sql {
  switch (c.fact) {
    case "phase":
      return sql`c."phase" = ${word(c.is)}`;
    case "heartbeat":
      return c.is === "missing"
        ? sql`c."lastHeartbeatAt" IS NULL`
        : sql`(c."lastHeartbeatAt" IS NOT NULL AND c."lastHeartbeatAt" >= ${since})`;
    case "apiServer":
      return sql`(c."apiServerHealth" IS NULL OR c."apiServerHealth" <> 'down')`;
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
function ruleCondition(rules: readonly StatusRule[], status: ClusterStatus, now: Date, thresholdSeconds: number): Sql {
  const at = rules.findIndex((r) => r.status === status);
  if (at < 0) return sql`1 = 0`;
  const since = cutoff(now, thresholdSeconds);
  const earlier = rules.slice(0, at);
  // Earlier rows that only name a phase become one `phase NOT IN (...)`, a read of the covering index.
  const phases = earlier.filter(phaseOnly).map((r) => word((r.when[0] as { is: string }).is));
  const terms = [
    ...(phases.length ? [sql`c."phase" NOT IN (${Sql.join(phases, ", ")})`] : []),
    ...earlier.filter((r) => !phaseOnly(r)).map((r) => sql`NOT (${allOf(r, since)})`),
    ...(rules[at]!.when.length ? [allOf(rules[at]!, since)] : []),
  ];
  return terms.length ? Sql.join(terms, " AND ") : sql`1 = 1`;
}

/** Clusters whose computed status (lib/domain/status.ts) is `status` at `now`. */
function statusCondition(status: ClusterStatus, now: Date, thresholdSeconds: number): Sql {
  return ruleCondition(STATUS_RULES, status, now, thresholdSeconds);
}

/** Ids of the clusters with more than `threshold` status changes in the hour before `now` (the (at) index). */
function flappingIds(now: Date, thresholdPerHour: number): Sql {
  return sql`SELECT "clusterId" FROM "ClusterEvent" WHERE "at" >= ${new Date(now.getTime() - FLAPPING_WINDOW_MS)}
    AND "kind" = 'status' GROUP BY "clusterId" HAVING count(*) > ${thresholdPerHour}`;
}

/** A health filter (lib/domain/cluster-reason.ts, matchesHealthFilter) in SQL. */
function healthCondition(filter: HealthFilter, now: Date, rules: FilterRules): Sql {
  const status = HEALTH_FILTER_STATUS[filter];
  if (status) return ruleCondition(HEALTH_RULES, status, now, rules.notReadyThresholdSeconds);
  if (filter === "degraded")
    return sql`(c."apiServerHealth" = 'degraded' AND ${conditionSql({ fact: "heartbeat", is: "fresh" }, cutoff(now, rules.notReadyThresholdSeconds))})`;
  return sql`c."id" IN (${flappingIds(now, rules.flappingThresholdPerHour)})`;
}

/** Status changes per cluster in the hour before `now`, for these ids (the (clusterId, at) index). */
export async function statusChangesLastHour(ids: readonly string[], now: Date): Promise<Map<string, number>> {
  if (!ids.length) return new Map();
  const rows = await query<{ clusterId: string; n: unknown }>(
    sql`SELECT "clusterId", count(*) AS n FROM "ClusterEvent" WHERE "clusterId" IN (${list(ids)})
        AND "at" >= ${new Date(now.getTime() - FLAPPING_WINDOW_MS)} AND "kind" = 'status' GROUP BY "clusterId"`,
  );
  return new Map(rows.map((r) => [r.clusterId, Number(r.n)]));
}

/** The computed status as a column, from the same rule table. */
function statusColumn(now: Date, thresholdSeconds: number): Sql {
  const since = cutoff(now, thresholdSeconds);
  const whens: Sql[] = [];
  for (const rule of STATUS_RULES) {
    if (!rule.when.length) return sql`CASE ${Sql.join(whens, " ")} ELSE ${word(rule.status)} END`;
    whens.push(sql`WHEN ${allOf(rule, since)} THEN ${word(rule.status)}`);
  }
  return sql`CASE ${Sql.join(whens, " ")} END`;
}

/** For filters that read no setting (a selector alone). */
const NO_RULES: FilterRules = { notReadyThresholdSeconds: 0, flappingThresholdPerHour: 0 };

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (ch) => `\\${ch}`);
}

/** The settings a filter reads. */
export type FilterRules = { notReadyThresholdSeconds: number; flappingThresholdPerHour: number };

function whereClause(filter: ClusterFilter, now: Date, rules: FilterRules): Sql {
  const thresholdSeconds = rules.notReadyThresholdSeconds;
  const terms: Sql[] = [];
  if (filter.selector?.length) terms.push(sql`c."id" IN (${selectorIds(filter.selector)})`);
  if (filter.status) terms.push(statusCondition(filter.status, now, thresholdSeconds));
  if (filter.health) terms.push(healthCondition(filter.health, now, rules));
  if (filter.blockedOn) {
    // The evaluator stores JSON.stringify({ [key]: { state, since } }), so a passing item reads
    // exactly so; a cluster it has not evaluated yet is blocked on everything.
    const passing = `%${JSON.stringify(filter.blockedOn)}:{"state":"pass"%`;
    terms.push(sql`c."enrolledAt" IS NULL AND (c."enrollment" IS NULL OR c."enrollment" NOT LIKE ${passing})`);
  }
  if (filter.enrollment)
    terms.push(filter.enrollment === "enrolled" ? sql`c."enrolledAt" IS NOT NULL` : sql`c."enrolledAt" IS NULL`);
  if (filter.text) {
    // Names are lowercase DNS labels, so a lowercase match is case-insensitive on both engines.
    const contains = `%${escapeLike(filter.text.toLowerCase())}%`;
    const prefix = `${escapeLike(filter.text)}%`;
    terms.push(sql`(c."name" LIKE ${contains} ESCAPE '\\' OR c."id" LIKE ${prefix} ESCAPE '\\')`);
  }
  return terms.length ? sql`WHERE ${Sql.join(terms, " AND ")}` : sql``;
}

/** What a page is ordered by; status is the computed one (the stored column lags behind phases). */
function sortColumn(sort: ClusterSort, now: Date, thresholdSeconds: number): Sql {
  switch (sort) {
    case "name":
      return sql`c."name"`;
    case "lastHeartbeatAt":
      return sql`c."lastHeartbeatAt"`;
    case "registeredAt":
      return sql`c."registeredAt"`;
    case "status":
      return statusColumn(now, thresholdSeconds);
  }
}

async function countOf(q: Sql): Promise<number> {
  const [row] = await query<{ n: unknown }>(q);
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
  const exact = !filter.status && !filter.health && !filter.enrollment && !filter.blockedOn && !filter.text;
  // A selector's matches are counted in the same pass that finds them; a plain count(*) of the
  // whole table is cheaper than a window over it.
  const windowed = exact && Boolean(filter.selector?.length);
  const pageQuery = query<{ id: string; total: unknown }>(
    sql`SELECT c."id", ${new Sql(windowed ? "count(*) OVER ()" : "0")} AS total FROM "Cluster" c ${where}
        ORDER BY ${sortColumn(page.sort, now, thresholdSeconds)} ${new Sql(page.order === "desc" ? "DESC" : "ASC")}, c."id" ASC
        LIMIT ${page.limit + 1} OFFSET ${page.offset}`,
  );
  // Run beside the page query (on PostgreSQL that is another connection of the pool).
  const countQuery = windowed
    ? null
    : exact
      ? countOf(sql`SELECT count(*) AS n FROM "Cluster" c ${where}`)
      : countOf(sql`SELECT count(*) AS n FROM (SELECT 1 AS one FROM "Cluster" c ${where} LIMIT ${TOTAL_CAP + 1}) m`);
  const [rows, counted] = await Promise.all([pageQuery, countQuery]);
  // A window count comes with the rows; past the last page there are none, so count apart.
  const count =
    counted ?? (rows.length ? Number(rows[0]!.total) : await countOf(sql`SELECT count(*) AS n FROM "Cluster" c ${where}`));
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
  const rows = await query<{ id: string }>(
    sql`SELECT c."id" FROM "Cluster" c ${whereClause(filter, now, rules)}
        ORDER BY ${sortColumn(order.sort, now, rules.notReadyThresholdSeconds)} ${new Sql(order.order === "desc" ? "DESC" : "ASC")}, c."id" ASC
        LIMIT ${limit}`,
  );
  return rows.map((r) => r.id);
}

/** Every cluster a selector matches, by name, with its agent version (a rollout plans over all of them). */
export async function matchingClusters(selector: Selector): Promise<{ id: string; agentVersion: string | null }[]> {
  return query<{ id: string; agentVersion: string | null }>(
    sql`SELECT c."id", c."agentVersion" FROM "Cluster" c ${whereClause({ selector }, new Date(), NO_RULES)} ORDER BY c."name" ASC, c."id" ASC`,
  );
}

/** How many clusters match a health filter (the Overview's flapping and degraded counts). */
export async function countHealth(health: HealthFilter, now: Date, rules: FilterRules): Promise<number> {
  return countOf(sql`SELECT count(*) AS n FROM "Cluster" c ${whereClause({ health }, now, rules)}`);
}

/** Ids of up to `limit` NotReady clusters, NotReady the longest first (the Overview's list). */
export async function longestNotReady(now: Date, thresholdSeconds: number, limit: number): Promise<string[]> {
  const rows = await query<{ id: string }>(
    sql`SELECT c."id" FROM "Cluster" c WHERE ${statusCondition("NotReady", now, thresholdSeconds)}
        ORDER BY c."statusChangedAt" ASC, c."id" ASC LIMIT ${limit}`,
  );
  return rows.map((r) => r.id);
}

/** Ids of up to `limit` clusters, by name, without a non-empty `key` label (from the label index). */
export async function missingLabel(key: string, limit: number): Promise<string[]> {
  const rows = await query<{ id: string }>(
    sql`SELECT c."id" FROM "Cluster" c
        WHERE c."id" IN (SELECT "id" FROM "Cluster" EXCEPT SELECT "clusterId" FROM "ClusterLabel" WHERE "key" = ${key} AND "value" <> '')
        ORDER BY c."name" ASC LIMIT ${limit}`,
  );
  return rows.map((r) => r.id);
}

/** Clusters by computed status in one pass, optionally within a selector. */
export async function countByStatus(
  now: Date,
  thresholdSeconds: number,
  selector?: Selector,
): Promise<Record<ClusterStatus, number>> {
  const where = whereClause({ selector }, now, NO_RULES);
  const rows = await query<{ status: ClusterStatus; n: unknown }>(
    sql`SELECT s.status, count(*) AS n FROM (SELECT ${statusColumn(now, thresholdSeconds)} AS status FROM "Cluster" c ${where}) s GROUP BY s.status`,
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

/** What the change gate and the enrollment checklist judge of one cluster, straight from its columns. */
export type GateFacts = {
  id: string;
  name: string;
  registeredAt: Date | null;
  phase: string;
  lastHeartbeatAt: Date | null;
  apiServerHealth: string | null;
  desiredPolicyRevision: string | null;
  appliedPolicyRevision: string | null;
  logsReporting: boolean | null;
  metricsReporting: boolean | null;
  labels: { key: string; value: string }[];
};

/** The enrollment evaluator's row: the checklist's facts and what it stored last time. */
export type EnrollmentFacts = GateFacts & { enrollment: string | null; enrolledAt: Date | null };

// Raw rows carry the driver's types: both engines give Date and boolean for these typed columns,
// but a string, a number or a bigint is turned into the same value rather than trusted.
function asDate(v: unknown): Date | null {
  return v === null || v === undefined
    ? null
    : v instanceof Date
      ? v
      : new Date(typeof v === "bigint" ? Number(v) : (v as string));
}
function asBool(v: unknown): boolean | null {
  return v === null || v === undefined ? null : typeof v === "boolean" ? v : Number(v) !== 0;
}

const FACT_COLUMNS_SQL = `c."id", c."name", c."registeredAt", c."phase", c."lastHeartbeatAt", c."apiServerHealth",
  c."desiredPolicyRevision", c."appliedPolicyRevision", c."logsReporting", c."metricsReporting"`;

function labelsByCluster(labels: { clusterId: string; key: string; value: string }[]) {
  const byCluster = new Map<string, { key: string; value: string }[]>();
  for (const l of labels) {
    const of = byCluster.get(l.clusterId);
    if (of) of.push({ key: l.key, value: l.value });
    else byCluster.set(l.clusterId, [{ key: l.key, value: l.value }]);
  }
  return byCluster;
}

function gateFactsOf(r: Record<string, unknown>, labels: Map<string, { key: string; value: string }[]>): GateFacts {
  return {
    id: r.id as string,
    name: r.name as string,
    registeredAt: asDate(r.registeredAt),
    phase: r.phase as string,
    lastHeartbeatAt: asDate(r.lastHeartbeatAt),
    apiServerHealth: (r.apiServerHealth as string | null) ?? null,
    desiredPolicyRevision: (r.desiredPolicyRevision as string | null) ?? null,
    appliedPolicyRevision: (r.appliedPolicyRevision as string | null) ?? null,
    logsReporting: asBool(r.logsReporting),
    metricsReporting: asBool(r.metricsReporting),
    labels: labels.get(r.id as string) ?? [],
  };
}

/**
 * The gate's facts of these clusters (one chunk of ids), in two plain queries by primary key:
 * exactly the columns the gate reads, and every label of the chunk. Order is not kept.
 */
export async function gateFacts(ids: readonly string[]): Promise<GateFacts[]> {
  if (!ids.length) return [];
  const [rows, labels] = await Promise.all([
    query<Record<string, unknown>>(sql`SELECT ${new Sql(FACT_COLUMNS_SQL)} FROM "Cluster" c WHERE c."id" IN (${list(ids)})`),
    query<{ clusterId: string; key: string; value: string }>(
      sql`SELECT "clusterId", "key", "value" FROM "ClusterLabel" WHERE "clusterId" IN (${list(ids)})`,
    ),
  ]);
  const byCluster = labelsByCluster(labels);
  return rows.map((r) => gateFactsOf(r, byCluster));
}

/**
 * Up to `limit` clusters after `afterId` in id order, with the checklist's facts, the stored
 * checklist and every label: two range reads on primary keys (Cluster, and ClusterLabel's
 * (clusterId, key)), instead of a Prisma query with a relation (which cost the evaluator most
 * of its 0.6 s of CPU a pass at 10,000 clusters).
 */
export async function enrollmentPage(afterId: string | null, limit: number): Promise<EnrollmentFacts[]> {
  const after = afterId === null ? sql`` : sql`WHERE c."id" > ${afterId}`;
  const rows = await query<Record<string, unknown>>(
    sql`SELECT ${new Sql(FACT_COLUMNS_SQL)}, c."enrollment", c."enrolledAt" FROM "Cluster" c ${after} ORDER BY c."id" LIMIT ${limit}`,
  );
  if (!rows.length) return [];
  const first = rows[0]!.id as string;
  const last = rows[rows.length - 1]!.id as string;
  const labels = await query<{ clusterId: string; key: string; value: string }>(
    sql`SELECT "clusterId", "key", "value" FROM "ClusterLabel" WHERE "clusterId" >= ${first} AND "clusterId" <= ${last}`,
  );
  const byCluster = labelsByCluster(labels);
  return rows.map((r) => ({
    ...gateFactsOf(r, byCluster),
    enrollment: (r.enrollment as string | null) ?? null,
    enrolledAt: asDate(r.enrolledAt),
  }));
}

/**
 * A condition's failure as alternatives, each one never NULL and each a read of a
 * Cluster(status, column) index once `status = ...` is beside it (no NOT around an OR).
 */
function conditionFailsSql(c: StatusCondition, since: Date): Sql[] {
  switch (c.fact) {
    case "phase":
      return [sql`c."phase" <> ${word(c.is)}`];
    case "heartbeat":
      return c.is === "missing"
        ? [sql`c."lastHeartbeatAt" IS NOT NULL`]
        : [sql`c."lastHeartbeatAt" IS NULL`, sql`c."lastHeartbeatAt" < ${since}`];
    case "apiServer":
      return [sql`c."apiServerHealth" = 'down'`];
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
    const recorded = sql`c."status" = ${word(rule.status)}`;
    const drifted = [
      ...HEALTH_RULES.slice(0, at).map((earlier) => allOf(earlier, since)),
      ...rule.when.flatMap((c) => conditionFailsSql(c, since)),
    ];
    for (const condition of drifted) {
      const q = sql`SELECT c."id" FROM "Cluster" c WHERE ${recorded} AND ${condition}`;
      cases.set(q.text + JSON.stringify(q.params), q);
    }
  });
  const rows = await query<{ id: string }>(
    sql`SELECT "id" FROM (${Sql.join([...cases.values()], " UNION ")}) AS due LIMIT ${limit}`,
  );
  return rows.map((r) => r.id);
}
