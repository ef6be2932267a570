// fleetctl: the admin API from a terminal or a CI pipeline.
//   npm run fleetctl -- gate --selector env=prod        exits 0 when the gate passes, 1 when not
//   npm run fleetctl -- gate --group prod --max-unready 10% --ignore-not-ready-longer-than 30m
//   npm run fleetctl -- clusters list [--status Ready] [--selector ...] [--limit 50]
//   npm run fleetctl -- label --selector env=prod --set tier=gold --remove foo [--dry-run]
//   npm run fleetctl -- tokens create --name eu-prod [--ttl 2h] [--max-clusters 3] [--fixed env=prod] [--require-approval]
//   npm run fleetctl -- requests list --name prod-eu-1   /  approve prod-eu-1 (or a request id)  /  deny rr_... --reason "not ours"
//   npm run fleetctl -- teams create --name payments --selector team=payments  /  add-member payments --user pat@example.com --role operator
// Server and key: --server / FLEET_SERVER (default http://127.0.0.1:3000), --api-key / FLEET_API_KEY.
// Exit codes: 0 ok (gate passed), 1 gate failed, 2 usage or request error.
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { z } from "zod";
import { clusterRoutes, type BulkLabelsResult } from "../contracts/clusters";
import { fleetRoutes, type GateResult } from "../contracts/fleet";
import { registrationRequestRoutes, requestCandidateSchema, type RegistrationRequest } from "../contracts/registration-requests";
import { routeUrl, type PathParams, type RouteContract } from "../contracts/route";
import { teamRoutes, type Team } from "../contracts/teams";
import { tokenRoutes } from "../contracts/tokens";
import { reasonText } from "../domain/error-text";
import { parseDuration, parseMaxUnready, ToleranceError } from "../domain/gate-tolerance";
import { parseSelector, SelectorError } from "../domain/selector";

const USAGE = `usage: fleetctl <command> [flags]
  gate --selector <kubectl selector> | --group <group>
       [--max-unready N|P%] [--ignore-not-ready-longer-than 30m|2h|1d]
  clusters list [--status S] [--selector S] [--group G] [--q TEXT] [--limit N]
  label (--selector S | --group G | --status S | --q TEXT) [--set k=v,...] [--remove k,...] [--dry-run]
  tokens create --name N [--ttl 2h|30m|7d|<seconds>] [--max-clusters N] [--fixed k=v,...] [--allowed k=v1|v2,k2=*]
                [--require-approval | --no-require-approval] [--team T]
                                               --team: the team's token (its clusters land in the team's scope)
  requests list [--state pending|decided|...] [--name N] [--q TEXT] [--limit N] [--cursor C]
                                               registration requests, newest first, every fact of each
  approve <request id | name>                  approve a pending registration request (by name: when only one waits;
                                               approving one denies the other requests for the name)
  deny <request id | name> --reason "..."      deny it; the agent is told the reason
  teams list                                   teams (a fleet role: all; else your own), scope, clusters, members
  teams show <team>                            one team: its scope, the clusters it matches and its members
  teams create --name N --selector S [--description D]
  teams add-member <team> (--user EMAIL|ID | --key-id ID | --sso-group G) --role viewer|operator|admin
  teams remove-member <team> <member: email, key name, SSO group or member id>
flags: --server URL (FLEET_SERVER), --api-key KEY (FLEET_API_KEY), --json`;

class UsageError extends Error {}

export function parseTtl(text: string): number {
  const m = /^(\d+)([smhd]?)$/.exec(text.trim());
  if (!m) throw new UsageError(`--ttl: "${text}" is not a duration like 90m, 2h or 7d`);
  return Number(m[1]) * { "": 1, s: 1, m: 60, h: 3600, d: 86_400 }[m[2] as "" | "s" | "m" | "h" | "d"];
}

export function parsePairs(text: string | undefined, flag: string): Record<string, string> {
  if (!text) return {};
  return Object.fromEntries(
    text.split(",").map((pair) => {
      const i = pair.indexOf("=");
      if (i <= 0) throw new UsageError(`${flag}: "${pair}" is not key=value`);
      return [pair.slice(0, i).trim(), pair.slice(i + 1).trim()];
    }),
  );
}

/** The same checks as the server (syntax and limits), so a bad --selector fails before any request. */
export function checkSelector(text: string | undefined): void {
  if (text === undefined) return;
  try {
    parseSelector(text);
  } catch (err) {
    if (err instanceof SelectorError) throw new UsageError(`--selector: ${err.message}`);
    throw err;
  }
}

/** The same checks as the server, so a bad tolerance flag fails before any request. */
export function checkTolerance(maxUnready: string | undefined, ignoreLongerThan: string | undefined): void {
  try {
    if (maxUnready !== undefined) parseMaxUnready(maxUnready);
  } catch (err) {
    if (err instanceof ToleranceError) throw new UsageError(`--max-unready: ${err.message}`);
    throw err;
  }
  try {
    if (ignoreLongerThan !== undefined) parseDuration(ignoreLongerThan);
  } catch (err) {
    if (err instanceof ToleranceError) throw new UsageError(`--ignore-not-ready-longer-than: ${err.message}`);
    throw err;
  }
}

/** Renders rows as an aligned text table. */
export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  return [line(headers), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

type CallInput<C extends RouteContract> = {
  params?: PathParams<C["path"]>;
  query?: Record<string, string | undefined>;
  body?: C["body"] extends z.ZodType ? z.input<C["body"]> : never;
};

/**
 * Calls one admin API route as its contract (lib/contracts) declares it, and reads the answer with
 * the contract's response schema: a server that answers outside it is an error here, not a
 * half-printed table.
 */
async function call<C extends RouteContract & { response: z.ZodType }>(
  server: string,
  key: string | undefined,
  contract: C,
  input: CallInput<C> = {},
): Promise<{ data: z.output<C["response"]>; raw: unknown }> {
  if (!key) throw new UsageError("no API key: pass --api-key or set FLEET_API_KEY (admins mint keys in Settings)");
  const path = routeUrl(contract, (input.params ?? {}) as PathParams<C["path"]>, input.query);
  const res = await fetch(new URL(path, server), {
    method: contract.method,
    headers: { authorization: `Bearer ${key}`, ...(input.body ? { "content-type": "application/json" } : {}) },
    body: input.body ? JSON.stringify(input.body) : undefined,
  }).catch((err: Error) => {
    throw new UsageError(`cannot reach ${server}: ${err.message}`);
  });
  const raw: unknown = await res.json().catch(() => null);
  if (!res.ok) {
    const refusal = (raw ?? {}) as { error?: unknown; message?: unknown; details?: unknown };
    const candidates = refusal.error === "ambiguous_request" ? describeCandidates(refusal.details) : "";
    throw new UsageError(
      `${res.status} ${reasonText(refusal.error) || "error"}: ${reasonText(refusal.message) || res.statusText}${candidates ? `\n${candidates}` : ""}`,
    );
  }
  const parsed = contract.response.safeParse(raw);
  if (!parsed.success) {
    const where = parsed.error.issues.slice(0, 3).map((i) => `${i.path.join(".") || "(body)"}: ${i.message}`);
    throw new UsageError(`${contract.method} ${path} answered outside its contract: ${where.join("; ")}`);
  }
  return { data: parsed.data as z.output<C["response"]>, raw };
}

/** 409 ambiguous_request's details: the requests a decision by name could mean. */
const ambiguousDetailsSchema = z.object({ requests: z.array(requestCandidateSchema) });

/** The requests a decision by name could mean, side by side: the operator picks one by its id. */
export function describeCandidates(details: unknown): string {
  const parsed = ambiguousDetailsSchema.safeParse(details);
  if (!parsed.success || !parsed.data.requests.length) return "";
  return table(
    ["REQUEST", "KEY FINGERPRINT", "SOURCE", "TOKEN", "CLUSTER UID", "FIRST ASKED", "LAST ASKED"],
    parsed.data.requests.map((r) => [
      r.id,
      r.keyFingerprint,
      r.sourceAddress ?? "-",
      r.tokenName,
      r.clusterUid ?? "-",
      r.firstSeenAt,
      r.lastSeenAt,
    ]),
  );
}

/** One block per request, every fact an operator weighs, and the flag when several keys wait for one name. */
export function describeRequests(items: RegistrationRequest[]): string {
  return items
    .map((r) =>
      [
        `${r.id}  ${r.name}  ${r.state}${r.state === "pending" && r.pendingForName > 1 ? `  (${r.pendingForName} requests for this name)` : ""}`,
        `  key fingerprint  ${r.keyFingerprint}`,
        `  source           ${r.sourceAddress ?? "-"}`,
        `  token            ${r.token.name}`,
        `  asked            first ${r.firstSeenAt}, last ${r.lastSeenAt}`,
        `  cluster UID      ${r.clusterUid ?? "-"}`,
        `  CA fingerprint   ${r.caFingerprint}`,
        `  API server       ${r.apiServerUrl}`,
      ].join("\n"),
    )
    .join("\n\n");
}

/** A team for a terminal: its scope, how many clusters it matches (the first names) and its members. */
export function describeTeam(t: Team): string {
  const more = t.clusters.count > t.clusters.names.length ? `, +${t.clusters.count - t.clusters.names.length} more` : "";
  return [
    `${t.name}  scope ${t.selector}${t.description ? `  (${t.description})` : ""}`,
    `  clusters  ${t.clusters.count}${t.clusters.names.length ? `: ${t.clusters.names.join(", ")}${more}` : ""}`,
    t.members.length
      ? table(
          ["  MEMBER", "KIND", "ROLE", "ID"],
          t.members.map((m) => [`  ${m.name}`, m.kind, m.role, m.id]),
        )
      : "  no members yet",
  ].join("\n");
}

/** "12 cluster(s) gain tier=gold" ... and what happened (or would). */
export function describeLabelSummary(s: BulkLabelsResult["summary"], dryRun: boolean, leftOut = 0): string {
  return [
    ...s.gains.map((g) => `${g.count} cluster(s) gain ${g.key}=${g.value}`),
    ...s.changes.map((c) => `${c.count} cluster(s) change ${c.key} from ${c.from} to ${c.to}`),
    ...s.removals.map((r) => `${r.count} cluster(s) lose ${r.key}`),
    `${s.unchanged} cluster(s) unchanged`,
    dryRun
      ? `dry run: ${s.changed} of ${s.matched} matching cluster(s) would change; nothing was written`
      : `${s.changed} of ${s.matched} matching cluster(s) changed (one audit entry)`,
    ...(leftOut ? [`${leftOut} matching cluster(s) outside your teams' scopes left alone`] : []),
  ].join("\n");
}

/** The gate's verdict for a terminal: PASS/FAIL and why, the tolerance, what was ignored, each cluster. */
export function describeGate(r: GateResult): string {
  const lines = [`${r.pass ? "PASS" : "FAIL"}  ${r.summary}`];
  lines.push(`      ${r.tolerance.text}`);
  if (r.ignored.text) lines.push(`      ${r.ignored.text}`);
  if (r.scope) lines.push(`      ${r.scope.text}`);
  if (r.clusters.length)
    lines.push(
      "",
      table(
        ["CLUSTER", "STATUS", "PHASE", "ENROLLED", "REASONS"],
        r.clusters.map((c) => [c.name, c.status, c.phase, c.enrolled ? "yes" : "no", c.reasons.join("; ") || "-"]),
      ),
    );
  if (r.ignored.clusters.length)
    lines.push(
      "",
      table(
        ["IGNORED", "NOTREADY SINCE"],
        r.ignored.clusters.map((c) => [c.name, c.notReadySince]),
      ),
    );
  return lines.join("\n");
}

export async function main(argv: string[], env: NodeJS.ProcessEnv, print: (s: string) => void): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      server: { type: "string" },
      "api-key": { type: "string" },
      selector: { type: "string" },
      group: { type: "string" },
      status: { type: "string" },
      state: { type: "string" },
      cursor: { type: "string" },
      q: { type: "string" },
      limit: { type: "string" },
      name: { type: "string" },
      ttl: { type: "string" },
      "max-clusters": { type: "string" },
      fixed: { type: "string" },
      allowed: { type: "string" },
      "require-approval": { type: "boolean" },
      "no-require-approval": { type: "boolean" },
      reason: { type: "string" },
      set: { type: "string" },
      remove: { type: "string" },
      "dry-run": { type: "boolean" },
      "max-unready": { type: "string" },
      "ignore-not-ready-longer-than": { type: "string" },
      description: { type: "string" },
      user: { type: "string" },
      "key-id": { type: "string" },
      "sso-group": { type: "string" },
      role: { type: "string" },
      team: { type: "string" },
      json: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  const server = values.server ?? env.FLEET_SERVER ?? "http://127.0.0.1:3000";
  const key = values["api-key"] ?? env.FLEET_API_KEY;
  const [command, sub] = positionals;
  if (values.help || !command) {
    print(USAGE);
    return values.help ? 0 : 2;
  }
  if (command === "gate") {
    if (!values.selector && !values.group) throw new UsageError("gate needs --selector or --group");
    checkSelector(values.selector);
    checkTolerance(values["max-unready"], values["ignore-not-ready-longer-than"]);
    const { data: r, raw } = await call(server, key, fleetRoutes.gate, {
      query: {
        selector: values.selector,
        group: values.group,
        maxUnready: values["max-unready"],
        ignoreNotReadyLongerThan: values["ignore-not-ready-longer-than"],
      },
    });
    print(values.json ? JSON.stringify(raw, null, 2) : describeGate(r));
    return r.pass ? 0 : 1;
  }
  if (command === "clusters" && sub === "list") {
    checkSelector(values.selector);
    const { data: r, raw } = await call(server, key, clusterRoutes.list, {
      query: { status: values.status, selector: values.selector, group: values.group, q: values.q, limit: values.limit ?? "50" },
    });
    if (values.json) print(JSON.stringify(raw, null, 2));
    else {
      print(
        table(
          ["NAME", "ID", "STATUS", "PHASE", "AGENT", "KUBERNETES", "LABELS"],
          r.items.map((c) => [
            c.name,
            c.id,
            c.status,
            c.phase,
            c.agentVersion ?? "-",
            c.kubernetesVersion ?? "-",
            Object.entries(c.labels)
              .map(([k, v]) => `${k}=${v}`)
              .join(","),
          ]),
        ),
      );
      print(`\n${r.items.length} of ${r.total} cluster(s)`);
    }
    return 0;
  }
  if (command === "label") {
    // The console's bulk label change: one audited operation over every cluster the filter matches now.
    if (!values.selector && !values.group && !values.status && !values.q)
      throw new UsageError(
        "label needs --selector, --group, --status or --q (to label every cluster, say --selector with a key all have)",
      );
    if (!values.set && !values.remove) throw new UsageError("label needs --set k=v,... and/or --remove k,...");
    checkSelector(values.selector);
    const filter = Object.fromEntries(
      Object.entries({ selector: values.selector, group: values.group, status: values.status, q: values.q }).filter(([, v]) => v),
    );
    const { data: r, raw } = await call(server, key, clusterRoutes.bulkLabels, {
      body: {
        filter,
        set: parsePairs(values.set, "--set"),
        remove: (values.remove ?? "")
          .split(",")
          .map((k) => k.trim())
          .filter(Boolean),
        dryRun: !!values["dry-run"],
      },
    });
    if (values.json) print(JSON.stringify(raw, null, 2));
    else print(describeLabelSummary(r.summary, r.dryRun, r.leftOut));
    return 0;
  }
  if (command === "tokens" && sub === "create") {
    if (!values.name) throw new UsageError("tokens create needs --name");
    const allowed = values.allowed
      ? Object.fromEntries(
          Object.entries(parsePairs(values.allowed, "--allowed")).map(([k, v]) => [k, v === "*" ? "*" : v.split("|")]),
        )
      : undefined;
    const { data: r, raw } = await call(server, key, tokenRoutes.mint, {
      body: {
        name: values.name,
        ...(values.ttl ? { ttlSeconds: parseTtl(values.ttl) } : {}),
        ...(values["max-clusters"] ? { maxClusters: Number(values["max-clusters"]) } : {}),
        ...(values.fixed ? { fixedLabels: parsePairs(values.fixed, "--fixed") } : {}),
        ...(allowed ? { allowedLabels: allowed } : {}),
        // Neither flag: the fleet's requireApprovalByDefault decides.
        ...(values["require-approval"] ? { requireApproval: true } : {}),
        ...(values["no-require-approval"] ? { requireApproval: false } : {}),
        ...(values.team ? { team: values.team } : {}),
      },
    });
    if (values.json) print(JSON.stringify(raw, null, 2));
    else
      print(
        `${r.token}\n\nid ${r.id}${r.team ? `, team ${r.team}` : ""}, expires ${r.expiresAt}, up to ${r.maxClusters} cluster(s)${r.requireApproval ? ", each after an operator's approval" : ""}. Shown once: store it now.`,
      );
    return 0;
  }
  if (command === "requests" && sub === "list") {
    const { data: r, raw } = await call(server, key, registrationRequestRoutes.list, {
      query: { state: values.state, name: values.name, q: values.q, limit: values.limit, cursor: values.cursor },
    });
    if (values.json) print(JSON.stringify(raw, null, 2));
    else {
      if (r.items.length) print(describeRequests(r.items) + "\n");
      print(`${r.items.length} request(s) shown, ${r.pending} pending in all`);
      if (r.nextCursor) print(`more: fleetctl requests list ... --cursor ${r.nextCursor}`);
    }
    return 0;
  }
  if (command === "approve" || command === "deny") {
    if (!sub) throw new UsageError(`${command} needs a request id or a cluster name`);
    if (command === "deny" && !values.reason?.trim()) throw new UsageError('deny needs --reason "..." (the agent is told it)');
    // The server finds the request by id, or by name when only one waits for it (else it lists them).
    const { data: r, raw } =
      command === "approve"
        ? await call(server, key, registrationRequestRoutes.approve, { params: { id: sub }, body: {} })
        : await call(server, key, registrationRequestRoutes.deny, { params: { id: sub }, body: { reason: values.reason! } });
    if (values.json) print(JSON.stringify(raw, null, 2));
    else
      print(
        command === "approve"
          ? `approved ${r.name} (request ${r.id}): cluster ${String(r.clusterId)}; the agent collects its certificate on its next try`
          : `denied ${r.name} (request ${r.id}): ${String(r.reason)}`,
      );
    return 0;
  }
  if (command === "teams") return teamsCommand(server, key, sub, positionals.slice(2), values, print);
  throw new UsageError(`unknown command "${positionals.join(" ")}"\n${USAGE}`);
}

type TeamFlags = {
  name?: string;
  selector?: string;
  description?: string;
  user?: string;
  "key-id"?: string;
  "sso-group"?: string;
  role?: string;
  json?: boolean;
};

async function teamsCommand(
  server: string,
  key: string | undefined,
  sub: string | undefined,
  args: string[],
  values: TeamFlags,
  print: (s: string) => void,
): Promise<number> {
  const out = (raw: unknown, text: string) => print(values.json ? JSON.stringify(raw, null, 2) : text);
  // Teams are named by name on the command line; the API takes ids.
  const teamNamed = async (name: string | undefined): Promise<Team> => {
    if (!name) throw new UsageError(`teams ${sub} needs a team name`);
    const { data } = await call(server, key, teamRoutes.list);
    const team = data.items.find((t) => t.name === name || t.id === name);
    if (!team) throw new UsageError(`no team ${name} (fleetctl teams list shows the teams you can see)`);
    return team;
  };
  if (sub === "list") {
    const { data, raw } = await call(server, key, teamRoutes.list);
    out(
      raw,
      data.items.length
        ? table(
            ["NAME", "SCOPE", "CLUSTERS", "MEMBERS"],
            data.items.map((t) => [t.name, t.selector, String(t.clusters.count), String(t.members.length)]),
          )
        : "no teams",
    );
    return 0;
  }
  if (sub === "show") {
    const team = await teamNamed(args[0]);
    out(team, describeTeam(team));
    return 0;
  }
  if (sub === "create") {
    if (!values.name || !values.selector) throw new UsageError("teams create needs --name and --selector");
    const { data, raw } = await call(server, key, teamRoutes.create, {
      body: { name: values.name, selector: values.selector, ...(values.description ? { description: values.description } : {}) },
    });
    out(raw, describeTeam(data));
    return 0;
  }
  if (sub === "add-member") {
    const team = await teamNamed(args[0]);
    const role = values.role;
    if (role !== "viewer" && role !== "operator" && role !== "admin")
      throw new UsageError("teams add-member needs --role viewer, operator or admin");
    const subjects = { user: values.user, apiKey: values["key-id"], ssoGroup: values["sso-group"] };
    if (Object.values(subjects).filter(Boolean).length !== 1)
      throw new UsageError("teams add-member needs exactly one of --user, --key-id and --sso-group");
    const { data, raw } = await call(server, key, teamRoutes.addMember, {
      params: { id: team.id },
      body: { ...Object.fromEntries(Object.entries(subjects).filter(([, v]) => v)), role },
    });
    out(raw, describeTeam(data));
    return 0;
  }
  if (sub === "remove-member") {
    const team = await teamNamed(args[0]);
    const member = team.members.find((m) => m.id === args[1] || m.name === args[1]);
    if (!member) throw new UsageError(`team ${team.name} has no member ${args[1] ?? "(none named)"}`);
    const { data, raw } = await call(server, key, teamRoutes.removeMember, { params: { id: team.id, memberId: member.id } });
    out(raw, describeTeam(data));
    return 0;
  }
  throw new UsageError(`unknown command "teams ${sub ?? ""}"\n${USAGE}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2), process.env, (s) => process.stdout.write(s + "\n")).then(
    (code) => process.exit(code),
    (err: Error) => {
      process.stderr.write(`fleetctl: ${err.message}\n`);
      process.exit(2);
    },
  );
}
