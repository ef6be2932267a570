// What each role allows (lib/contracts/role-reach.ts), read from the route declarations: a
// summary in plain words, the area from the path, and a role's reach, fleet-wide or through a team.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { areaOf, plainSummary, reachOf, roleActions } from "@/lib/contracts/role-reach";
import { route, type RouteContract } from "@/lib/contracts/route";
import { ADMIN_ROUTES } from "@/lib/contracts/routes";
import { hasRole, ROLES } from "@/lib/domain/roles";

describe("role reach", () => {
  test("a summary's first statement, without its details", () => {
    assert.equal(
      plainSummary("Mint a registration token (shown once); with `clusterId` it is bound to that cluster"),
      "Mint a registration token",
    );
    assert.equal(
      plainSummary("Add a user (id or email), an API key (id) or an SSO group to a team, with a role in it"),
      "Add a user, an API key or an SSO group to a team, with a role in it",
    );
    assert.equal(
      plainSummary("Retire a node pool (drainNodePool directive (a) with) a reason. Without `force` ..."),
      "Retire a node pool a reason",
    );
    assert.equal(
      plainSummary("Pause, resume, abort, or approve the next stage"),
      "Pause, resume, abort, or approve the next stage",
    );
  });

  test("the area is the path's first segment after /api/v1", () => {
    assert.equal(areaOf("/api/v1/registration-tokens/{id}"), "Registration tokens");
    assert.equal(areaOf("/api/v1/clusters/{id}/snooze"), "Clusters");
    assert.equal(areaOf("/api/v1/ca/rollover"), "Fleet CA");
  });

  test("a fleet role reaches every route at or below it; a team role, only what teams reach", () => {
    const declared: RouteContract[] = [
      route({ method: "GET", path: "/api/v1/things", summary: "Things", role: "viewer", scope: "clusters" }),
      route({ method: "POST", path: "/api/v1/things", summary: "Make a thing", role: "operator", scope: "fleet" }),
      route({ method: "DELETE", path: "/api/v1/things/{id}", summary: "Delete a thing", role: "admin", scope: "cluster" }),
    ];
    const actions = roleActions(declared);
    const does = (role: (typeof ROLES)[number], through: "fleet" | "team") => reachOf(actions, role, through).map((a) => a.does);
    assert.deepEqual(does("viewer", "fleet"), ["Things"]);
    assert.deepEqual(does("operator", "fleet").sort(), ["Make a thing", "Things"]);
    assert.deepEqual(does("operator", "team"), ["Things"], "making one is for fleet roles");
    assert.deepEqual(does("admin", "team").sort(), ["Delete a thing", "Things"]);
  });

  test("over the real declarations: each action is its route's, and higher roles reach more", () => {
    const actions = roleActions(ADMIN_ROUTES);
    assert.equal(actions.length, ADMIN_ROUTES.length);
    for (const a of actions) {
      const c = ADMIN_ROUTES.find((r) => r.method === a.method && r.path === a.path)!;
      assert.equal(a.role, c.role);
      assert.equal(a.teams, c.scope !== "fleet");
      assert.ok(a.does.length > 0 && a.does.length <= c.summary.length, `${a.method} ${a.path}`);
    }
    for (const through of ["fleet", "team"] as const) {
      const sizes = ROLES.map((r) => reachOf(actions, r, through).length);
      assert.ok(sizes[0]! < sizes[1]! && sizes[1]! < sizes[2]!, `${through}: ${sizes.join(" < ")}`);
    }
    assert.ok(reachOf(actions, "admin", "team").every((a) => hasRole("admin", a.role) && a.teams));
  });
});
