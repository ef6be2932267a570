import type { z } from "zod";
import type { Role } from "@/lib/domain/roles";

// One declaration per admin API handler: who may call it, what it accepts and what it answers.
// The route wrapper (lib/server/api/admin-route.ts), the OpenAPI document, the console's fetch
// and the role-matrix test all read these; nothing restates them.

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/**
 * How a route is bounded for a caller whose roles come from teams (lib/domain/teams.ts). A fleet
 * role at or above `role` passes every scope and sees everything.
 * - `fleet`: a fleet role is needed; team roles give nothing here (403).
 * - `cluster`: the path's `{id}` is a cluster. A caller whose teams do not see it gets 404 exactly
 *   as for an id that does not exist; one whose teams see it with a lower role than `role`, 403.
 * - `clusters`: a list, count or aggregate over clusters: open to whoever holds `role` in some
 *   team, and the handler bounds it to `scope` (the selectors of those teams).
 * - `team`: the path's `{id}` is a team: its members with `role` in it (or a fleet role) pass;
 *   anyone else gets 404.
 * - `member`: whoever holds `role` in the fleet or in any team, for answers that hold no cluster
 *   (the fleet's public facts) or only the caller's own (their teams).
 * - `token`, `rollout`, `webhook`, `view`: the path's `{id}` is a registration token, rollout,
 *   webhook subscription or saved view, which belongs to the team that made it (or to the fleet).
 *   Members of that team with `role` in it pass; anyone else gets 404 as for an unknown id.
 * - `request`: the path's `{id}` is a registration request (or the name it waits under): a team
 *   member passes when the labels the cluster would carry are in their team's scope, by that
 *   team's role; anyone else gets 404.
 */
export const ROUTE_SCOPES = [
  "fleet",
  "cluster",
  "clusters",
  "team",
  "member",
  "token",
  "rollout",
  "webhook",
  "view",
  "request",
] as const;
export type RouteScope = (typeof ROUTE_SCOPES)[number];

export type RouteContract = {
  method: Method;
  /** OpenAPI style: `{id}` names a path parameter. */
  path: string;
  summary: string;
  role: Role;
  scope: RouteScope;
  /**
   * The role needed when the call is allowed through a team rather than a fleet role, where it is
   * higher than `role` (a team's tokens and subscriptions are its admins' to manage). Absent: `role`.
   */
  teamRole?: Role;
  /**
   * Only a person signed in to the console may call it, never an API key (403 session_required):
   * what creates or changes who can sign in, or mints keys, must not be reachable by a key, or a
   * key could make credentials that outlive its own revocation.
   */
  session?: true;
  body?: z.ZodType;
  /** The body may be left out entirely (read as `{}`). */
  bodyOptional?: boolean;
  query?: z.ZodType;
  /** The JSON answer (omitted: not JSON, e.g. an event stream, or not declared yet). */
  response?: z.ZodType;
  /** A text/event-stream answer: the data of each message. */
  events?: z.ZodType;
  /** The success status (200 unless said). */
  status?: 200 | 201 | 204;
  /** Answers that hold a secret shown once are never cached. */
  noStore?: boolean;
};

/** Declares a route; `const` keeps the literal path and schemas for the wrapper's types. */
export function route<const C extends RouteContract>(contract: C): C {
  return contract;
}

type ParamNames<P extends string> = P extends `${string}{${infer K}}${infer Rest}` ? K | ParamNames<Rest> : never;
/** `{ id: string }` for "/api/v1/clusters/{id}". */
export type PathParams<P extends string> = { [K in ParamNames<P>]: string };

export type BodyOf<C extends RouteContract> = C["body"] extends z.ZodType ? z.output<C["body"]> : undefined;
export type QueryOf<C extends RouteContract> = C["query"] extends z.ZodType ? z.output<C["query"]> : undefined;
/** What a handler returns for this route (before JSON: ISO strings already, as on the wire). */
export type ReplyOf<C extends RouteContract> = C["response"] extends z.ZodType ? z.input<C["response"]> : unknown;
/** What the console receives. */
export type ResponseOf<C extends RouteContract> = C["response"] extends z.ZodType ? z.output<C["response"]> : unknown;

/** The concrete URL of a route: `{id}` and friends filled in and encoded. */
export function routeUrl<C extends RouteContract>(
  contract: C,
  params: PathParams<C["path"]>,
  query?: Record<string, string | undefined>,
) {
  const path = contract.path.replace(/\{(\w+)\}/g, (_, k: string) =>
    encodeURIComponent((params as Record<string, string>)[k] ?? ""),
  );
  const qs = new URLSearchParams(Object.entries(query ?? {}).filter((e): e is [string, string] => !!e[1]));
  return qs.size ? `${path}?${qs}` : path;
}

/** Why a handler's answer is outside its declared response (read in its JSON form), or null. */
export function replyProblem(contract: RouteContract, reply: unknown): string | null {
  if (!contract.response) return null;
  const parsed = contract.response.safeParse(JSON.parse(JSON.stringify(reply ?? null)));
  if (parsed.success) return null;
  const where = parsed.error.issues.slice(0, 5).map((i) => `${i.path.join(".") || "(body)"}: ${i.message}`);
  return `${contract.method} ${contract.path} answered outside its contract: ${where.join("; ")}`;
}
