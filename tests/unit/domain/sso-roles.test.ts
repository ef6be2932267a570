// The SSO role mapping (lib/domain/sso-roles.ts): which role a person's claims give, when the ID
// token is not enough and userinfo must be read, and the Settings form's rule lines.
import assert from "node:assert/strict";
import { test } from "node:test";
import { settingsPatchSchema } from "@/lib/domain/settings";
import {
  claimValues,
  formatRuleLines,
  needsUserinfo,
  parseRuleLines,
  roleFromClaims,
  ssoRoleMappingSchema,
  type SsoRoleMapping,
} from "@/lib/domain/sso-roles";

const mapping: SsoRoleMapping = {
  claim: "groups",
  rules: [
    { value: "platform-ops", role: "operator" },
    { value: "platform-admins", role: "admin" },
    { value: "auditors", role: "viewer" },
  ],
  defaultRole: "viewer",
};

test("the highest role among the matching rules wins, whatever the rules' order", () => {
  assert.equal(roleFromClaims(mapping, { groups: ["staff", "platform-ops"] }), "operator");
  assert.equal(roleFromClaims(mapping, { groups: ["platform-admins", "platform-ops", "auditors"] }), "admin");
  assert.equal(
    roleFromClaims({ ...mapping, rules: [...mapping.rules].reverse() }, { groups: ["platform-ops", "platform-admins"] }),
    "admin",
  );
  assert.equal(roleFromClaims(mapping, { groups: ["auditors"] }), "viewer");
});

test("no match, no claim or a claim of another shape gives the default role", () => {
  assert.equal(roleFromClaims(mapping, { groups: ["staff"] }), "viewer");
  assert.equal(roleFromClaims({ ...mapping, defaultRole: "operator" }, {}), "operator");
  assert.equal(roleFromClaims(mapping, { groups: { admins: true } }), "viewer");
  // Values compare exactly: a provider's group names are case-sensitive.
  assert.equal(roleFromClaims(mapping, { groups: ["Platform-Admins"] }), "viewer");
  // A default of none gives no role at all: the sign-in is refused.
  assert.equal(roleFromClaims({ ...mapping, defaultRole: "none" }, { groups: ["staff"] }), null);
  assert.equal(roleFromClaims({ ...mapping, defaultRole: "none" }, { groups: ["auditors"] }), "viewer");
});

test("a claim may be a single string, a namespaced name with dots, or a dotted path", () => {
  assert.equal(roleFromClaims({ ...mapping, claim: "role" }, { role: "platform-admins" }), "admin");
  assert.deepEqual(claimValues({ "https://fleet.example/groups": ["a", "b"] }, "https://fleet.example/groups"), ["a", "b"]);
  assert.deepEqual(claimValues({ realm_access: { roles: ["platform-ops", 7, null, { x: 1 }] } }, "realm_access.roles"), [
    "platform-ops",
    "7",
  ]);
  assert.deepEqual(claimValues({ realm_access: ["x"] }, "realm_access.roles"), []);
});

test("userinfo is read when the ID token lacks email, name or the mapping's claim", () => {
  assert.equal(needsUserinfo({ sub: "a" }, null), true);
  assert.equal(needsUserinfo({ sub: "a", email: "a@x.test" }, null), true);
  assert.equal(needsUserinfo({ sub: "a", email: "a@x.test", name: "" }, null), true);
  assert.equal(needsUserinfo({ sub: "a", email: "a@x.test", name: "A" }, null), false);
  assert.equal(needsUserinfo({ sub: "a", email: "a@x.test", name: "A" }, "groups"), true);
  assert.equal(needsUserinfo({ sub: "a", email: "a@x.test", name: "A", groups: ["g"] }, "groups"), false);
});

test("the form's rule lines read back into the rules they were written from", () => {
  assert.equal(formatRuleLines(mapping.rules), "platform-ops = operator\nplatform-admins = admin\nauditors = viewer");
  assert.deepEqual(parseRuleLines(formatRuleLines(mapping.rules)), { rules: mapping.rules });
  assert.deepEqual(parseRuleLines("\n  team=a = Admin  \n\n"), { rules: [{ value: "team=a", role: "admin" }] });
  assert.deepEqual(parseRuleLines("ops = operator\nops-without-role"), {
    problem: "Line 2 (“ops-without-role”) is not “claim value = admin, operator or viewer”.",
  });
  assert.ok("problem" in parseRuleLines("ops = superuser"));
  assert.ok("problem" in parseRuleLines(" = admin"));
});

test("a mapping needs a claim and at least one rule; the settings patch takes one or null", () => {
  assert.equal(ssoRoleMappingSchema.safeParse({ ...mapping, claim: "  " }).success, false);
  assert.equal(ssoRoleMappingSchema.safeParse({ ...mapping, rules: [] }).success, false);
  assert.equal(ssoRoleMappingSchema.safeParse({ ...mapping, rules: [{ value: "x", role: "root" }] }).success, false);
  assert.equal(ssoRoleMappingSchema.safeParse({ ...mapping, extra: 1 }).success, false);
  assert.equal(settingsPatchSchema.safeParse({ ssoRoleMapping: mapping }).success, true);
  assert.equal(settingsPatchSchema.safeParse({ ssoRoleMapping: null }).success, true);
  assert.equal(settingsPatchSchema.safeParse({ ssoRoleMapping: { claim: "groups" } }).success, false);
  // The provider whose emails an admin trusts is named by its issuer URL.
  assert.equal(settingsPatchSchema.safeParse({ ssoTrustedEmailIssuer: "https://idp.example/realms/fleet" }).success, true);
  assert.equal(settingsPatchSchema.safeParse({ ssoTrustedEmailIssuer: null }).success, true);
  assert.equal(settingsPatchSchema.safeParse({ ssoTrustedEmailIssuer: "idp.example" }).success, false);
});
