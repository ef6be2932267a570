import { z } from "zod";
import { ROLES } from "@/lib/domain/roles";
import { roleActionSchema } from "./role-reach";
import { route } from "./route";

// The caller's own access: what they can see and do, and why (the console's "Your access" page).

const role = z.enum(ROLES);

/** How a team role reached the caller: each membership that gives it, as the team stores it. */
export const teamGrantSchema = z.discriminatedUnion("via", [
  /** the user is a member themselves */
  z.object({ via: z.literal("user"), role }),
  /** an SSO group the user was in at their last single sign-on is a member */
  z.object({ via: z.literal("ssoGroup"), group: z.string(), role }),
  /**
   * the API key is a member; `cappedTo`: the role it acts with when its creator's own access to
   * the team (their fleet role or their role in it) is lower than the membership's, else null
   */
  z.object({ via: z.literal("apiKey"), role, cappedTo: role.nullable() }),
]);
export type TeamGrantWhy = z.infer<typeof teamGrantSchema>;

export const myAccessSchema = z.object({
  who: z.object({ kind: z.enum(["user", "apiKey"]), name: z.string() }),
  fleet: z.object({
    /** null: no fleet role, only what teams give */
    role: role.nullable(),
    /** where it comes from, in a sentence */
    why: z.string(),
  }),
  /** the caller's teams, by name: the role in each (the highest of its grants), its scope and how many clusters it matches now */
  teams: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      description: z.string().nullable(),
      role,
      grants: z.array(teamGrantSchema),
      selector: z.string(),
      clusters: z.number(),
    }),
  ),
  /** a single sign-on user's groups at their last sign-in (what SSO group memberships read); empty otherwise */
  ssoGroups: z.array(z.string()),
  /**
   * Every route of the API with the lowest role that reaches it and whether a team role does,
   * in plain words (lib/contracts/role-reach.ts): what each role allows, read from the declarations.
   */
  actions: z.array(roleActionSchema),
});
export type MyAccess = z.infer<typeof myAccessSchema>;

export const meRoutes = {
  access: route({
    method: "GET",
    path: "/api/v1/me/access",
    summary:
      "Your access: your fleet role, each of your teams with your role in it and how it was granted, its scope and how many clusters it matches, and what each role allows",
    role: "viewer",
    scope: "member",
    response: myAccessSchema,
  }),
};
