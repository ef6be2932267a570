import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseSelector } from "@/lib/domain/selector";
import {
  accessOn,
  createTeamSchema,
  matchedTerms,
  pinnedLabels,
  scopeFor,
  scopeProblem,
  withinScope,
  type Access,
} from "@/lib/domain/teams";

const grant = (team: string, role: "viewer" | "operator" | "admin", selector: string) => ({
  teamId: `t-${team}`,
  team,
  role,
  selector: parseSelector(selector),
});

describe("team scopes", () => {
  test("a scope names at least one label value: empty, negative-only, presence-only and broken selectors are refused", () => {
    assert.match(scopeProblem("")!, /cannot be empty/);
    assert.match(scopeProblem("   ")!, /cannot be empty/);
    assert.match(scopeProblem("!legacy")!, /at least one label value/);
    assert.match(scopeProblem("env")!, /at least one label value/);
    assert.match(scopeProblem("env!=prod,team notin (data)")!, /at least one label value/);
    assert.match(scopeProblem("team in (")!, /unbalanced/);
    assert.match(scopeProblem(`team in (${Array.from({ length: 51 }, (_, i) => `v${i}`).join(",")})`)!, /at most 50 values/);
    assert.equal(scopeProblem("team=payments"), null);
    assert.equal(scopeProblem("team in (payments,billing),env!=sandbox"), null);
    const refused = createTeamSchema.safeParse({ name: "payments", selector: "!x" });
    assert.equal(refused.success, false);
    assert.equal(
      createTeamSchema.safeParse({ name: "Payments", selector: "team=payments" }).success,
      false,
      "names are DNS labels",
    );
  });

  test("the role on a cluster is the highest of the fleet role and the matching teams', with the grant it comes from", () => {
    const access: Access = {
      fleetRole: null,
      teams: [grant("payments", "operator", "team=payments"), grant("eu-watch", "viewer", "region=eu")],
    };
    assert.deepEqual(accessOn(access, { team: "payments", region: "eu" }), { role: "operator", team: "payments" });
    assert.deepEqual(accessOn(access, { team: "data", region: "eu" }), { role: "viewer", team: "eu-watch" });
    assert.equal(accessOn(access, { team: "data", region: "us" }), null, "outside every scope: not there at all");
    assert.deepEqual(accessOn({ ...access, fleetRole: "viewer" }, { team: "data" }), { role: "viewer", team: null });
    assert.deepEqual(
      accessOn({ ...access, fleetRole: "operator" }, { team: "payments" }),
      { role: "operator", team: null },
      "a fleet role as high as the team's is the reason",
    );
  });

  test("a list is bounded by the teams that grant the route's role; a fleet role at that role is not bounded", () => {
    const access: Access = {
      fleetRole: "viewer",
      teams: [grant("payments", "operator", "team=payments"), grant("eu-watch", "viewer", "region=eu")],
    };
    assert.equal(scopeFor(access, "viewer"), null);
    assert.deepEqual(scopeFor(access, "operator"), [parseSelector("team=payments")]);
    assert.deepEqual(scopeFor({ fleetRole: null, teams: [] }, "viewer"), []);
  });

  test("the cluster page's why: the scope's terms the labels satisfy", () => {
    assert.deepEqual(matchedTerms(parseSelector("team in (payments,billing),env!=sandbox"), { team: "billing", env: "prod" }), [
      "team in (payments,billing)",
      "env!=sandbox",
    ]);
  });

  test("a token pre-fills the labels a scope pins to one value; choices and negations are left to the minter", () => {
    assert.deepEqual(pinnedLabels(parseSelector("team=payments,env in (prod),region in (eu,us),tier!=free,!legacy")), {
      team: "payments",
      env: "prod",
    });
  });

  test("within a bounded answer: any of the scope's selectors; null is the whole fleet, no selectors nothing", () => {
    const scope = [parseSelector("team=payments"), parseSelector("team=data,env=prod")];
    assert.equal(withinScope(scope, { team: "payments" }), true);
    assert.equal(withinScope(scope, { team: "data", env: "prod" }), true);
    assert.equal(withinScope(scope, { team: "data", env: "dev" }), false);
    assert.equal(withinScope(scope, {}), false);
    assert.equal(withinScope(null, {}), true);
    assert.equal(withinScope([], { team: "payments" }), false);
  });
});
