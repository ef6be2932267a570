import { z } from "zod";
import { addTeamMemberSchema, createTeamSchema, TEAM_ROLES, updateTeamMemberSchema, updateTeamSchema } from "@/lib/domain/teams";
import { isoTime, itemsOf } from "./common";
import { route } from "./route";

// Teams (lib/domain/teams.ts): fleet admins create them and set their scope; a team's admins
// manage its members; its members see it.

export const teamMemberSchema = z.object({
  id: z.string(),
  kind: z.enum(["user", "apiKey", "ssoGroup"]),
  /** The user's email, the API key's name, or the SSO group's claim value. */
  name: z.string(),
  /** The user's or API key's id; null for an SSO group. */
  subjectId: z.string().nullable(),
  role: z.enum(TEAM_ROLES),
  createdAt: isoTime,
});
export type TeamMember = z.infer<typeof teamMemberSchema>;

const sample = z.object({ count: z.number(), names: z.array(z.string()) });

export const teamSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  selector: z.string(),
  /** How many clusters the scope matches now, and the first names. */
  clusters: sample,
  members: z.array(teamMemberSchema),
  createdAt: isoTime,
  updatedAt: isoTime,
});
export type Team = z.infer<typeof teamSchema>;

export const scopePreviewBodySchema = z.object({ selector: z.string().max(2048), team: z.string().max(100).optional() }).strict();

/** What a scope would match: a problem, or the clusters, and against a team's current scope those entering and leaving. */
export const scopePreviewSchema = z.object({
  problem: z.string().nullable(),
  matches: sample,
  entering: sample.nullable(),
  leaving: sample.nullable(),
});
export type ScopePreview = z.infer<typeof scopePreviewSchema>;

export const deleteTeamQuerySchema = z.object({ confirm: z.string().max(100).optional() }).strict();

export const teamRoutes = {
  list: route({
    method: "GET",
    path: "/api/v1/teams",
    summary: "Teams: every team for a fleet role, else the caller's own",
    role: "viewer",
    scope: "member",
    response: itemsOf(teamSchema),
  }),
  create: route({
    method: "POST",
    path: "/api/v1/teams",
    summary: "Create a team with its scope (a label selector naming at least one label value)",
    role: "admin",
    scope: "fleet",
    body: createTeamSchema,
    response: teamSchema,
    status: 201,
  }),
  preview: route({
    method: "POST",
    path: "/api/v1/teams/scope-preview",
    summary: "What a scope selector matches, and against a team's current scope the clusters entering and leaving",
    role: "admin",
    scope: "fleet",
    body: scopePreviewBodySchema,
    response: scopePreviewSchema,
  }),
  get: route({
    method: "GET",
    path: "/api/v1/teams/{id}",
    summary: "A team",
    role: "viewer",
    scope: "team",
    response: teamSchema,
  }),
  update: route({
    method: "PATCH",
    path: "/api/v1/teams/{id}",
    summary: "Rename a team, or change its description or scope (a fleet admin: a team cannot widen its own scope)",
    role: "admin",
    scope: "fleet",
    body: updateTeamSchema,
    response: teamSchema,
  }),
  delete: route({
    method: "DELETE",
    path: "/api/v1/teams/{id}",
    summary: "Delete a team; one with members needs ?confirm=<its name>",
    role: "admin",
    scope: "fleet",
    query: deleteTeamQuerySchema,
    status: 204,
  }),
  addMember: route({
    method: "POST",
    path: "/api/v1/teams/{id}/members",
    summary: "Add a user (id or email), an API key (id) or an SSO group to a team, with a role in it",
    role: "admin",
    scope: "team",
    body: addTeamMemberSchema,
    response: teamSchema,
    status: 201,
  }),
  updateMember: route({
    method: "PATCH",
    path: "/api/v1/teams/{id}/members/{memberId}",
    summary: "Change a member's role in the team (its last admin cannot be demoted)",
    role: "admin",
    scope: "team",
    body: updateTeamMemberSchema,
    response: teamSchema,
  }),
  removeMember: route({
    method: "DELETE",
    path: "/api/v1/teams/{id}/members/{memberId}",
    summary: "Remove a member from the team (not its last admin)",
    role: "admin",
    scope: "team",
    response: teamSchema,
  }),
};
