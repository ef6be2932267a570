// The console's page table (lib/domain/page-roles.ts) is the one place a page's role and its
// navigation entry are written: every page under app/(console) has an entry and asks for its own,
// every entry has a page, and the layout's navigation is read from the table.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { CONSOLE_PAGES, mayOpen, navItems, pageRole } from "@/lib/domain/page-roles";

const CONSOLE = path.join(process.cwd(), "app", "(console)");

/** Every page.tsx under app/(console), as its route ("/clusters/[id]"); route groups left out. */
function consolePages(dir = CONSOLE): Map<string, string> {
  const pages = new Map<string, string>();
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, e.name);
    if (e.isDirectory()) for (const [route, f] of consolePages(file)) pages.set(route, f);
    else if (e.name === "page.tsx") {
      const parts = path
        .relative(CONSOLE, dir)
        .split(path.sep)
        .filter((p) => p && !/^\(.*\)$/.test(p));
      pages.set(`/${parts.join("/")}`, file);
    }
  }
  return pages;
}

describe("console pages", () => {
  const pages = consolePages();
  const routes: string[] = CONSOLE_PAGES.map((p) => p.route);

  test("every page under app/(console) has an entry, and every entry a page", () => {
    assert.deepEqual(
      [...pages.keys()].filter((r) => !routes.includes(r)),
      [],
      "pages without an entry in CONSOLE_PAGES",
    );
    assert.deepEqual(
      routes.filter((r) => !pages.has(r)),
      [],
      "entries without a page",
    );
    assert.equal(new Set(routes).size, routes.length, "a route listed twice");
  });

  test("each page opens as its own entry (its role and its first data), and only that", () => {
    for (const [route, file] of pages) {
      // openPage (lib/server/console/open-page.ts) checks the role and loads the first data.
      const asked = [...readFileSync(file, "utf8").matchAll(/\b(?:openPage|requirePage|requireRole)\(([^,)]*)/g)].map(
        (m) => m[1],
      );
      assert.deepEqual(
        asked,
        [JSON.stringify(route)],
        `${path.relative(process.cwd(), file)} must call openPage("${route}", ...)`,
      );
    }
  });

  test("each page hands its first data over with the instant it was read, so its times hydrate as rendered", () => {
    for (const [route, file] of pages) {
      const source = readFileSync(file, "utf8");
      if (!/\bopenPage\(/.test(source)) continue;
      const where = path.relative(process.cwd(), file);
      // A bare <HydrationBoundary> renders "12 s ago" against the server's clock and hydrates it
      // against the browser's: a text mismatch whenever a second ticks in between.
      assert.doesNotMatch(source, /<HydrationBoundary\b/, `${where} (${route}): use <PageHydration state now>`);
      if (/\bstate\b/.test(source)) assert.match(source, /<PageHydration state=\{state\} now=\{now\}>/, where);
    }
  });

  test("the navigation is the table's: no link written in the layout", () => {
    const layout = readFileSync(path.join(CONSOLE, "layout.tsx"), "utf8");
    assert.match(layout, /navItems\(accessOf\(principal\)\)/);
    assert.doesNotMatch(layout, /href:\s*["'`]/, "a nav item written by hand in app/(console)/layout.tsx");
    for (const role of ["viewer", "operator", "admin"] as const) {
      for (const item of navItems({ fleetRole: role, teams: [] })) {
        assert.ok(pages.has(item.href), `nav item ${item.href} has no page`);
        assert.equal(pageRole(item.href), CONSOLE_PAGES.find((p) => p.route === item.href)!.role);
      }
    }
    assert.deepEqual(
      navItems({ fleetRole: "viewer", teams: [] }).map((i) => i.label),
      ["Overview", "Clusters", "Groups", "Tokens", "Cluster API", "Policies", "Rollouts", "Versions", "Node pools", "Teams"],
    );
    assert.deepEqual(
      navItems({ fleetRole: "admin", teams: [] }).map((i) => i.href),
      CONSOLE_PAGES.filter((p) => "nav" in p).map((p) => p.route),
    );
  });

  test("whoever has only team roles sees the team pages (their clusters), at their highest team role", () => {
    const teams = [{ teamId: "t1", team: "payments", role: "operator" as const, selector: [] }];
    assert.deepEqual(
      navItems({ fleetRole: null, teams }).map((i) => i.label),
      ["Overview", "Clusters", "Tokens", "Approvals", "Rollouts", "Versions", "Node pools", "Audit log", "Teams"],
    );
    assert.deepEqual(navItems({ fleetRole: null, teams: [] }), [], "no role at all: nothing");
    assert.deepEqual(
      navItems({ fleetRole: null, teams: [{ ...teams[0]!, role: "viewer" }] }).map((i) => i.label),
      ["Overview", "Clusters", "Tokens", "Rollouts", "Versions", "Node pools", "Teams"],
      "the audit log is for team operators",
    );
    const newRollout = CONSOLE_PAGES.find((p) => p.route === "/rollouts/new")!;
    assert.ok(mayOpen(newRollout, { fleetRole: null, teams }), "a team operator plans their team's rollouts");
    assert.ok(!mayOpen(newRollout, { fleetRole: null, teams: [{ ...teams[0]!, role: "viewer" }] }));
    const wizard = CONSOLE_PAGES.find((p) => p.route === "/clusters/[id]/deregister")!;
    assert.ok(mayOpen(wizard, { fleetRole: null, teams }));
    assert.deepEqual(
      navItems({ fleetRole: null, teams: [{ ...teams[0]!, role: "admin" }] }).map((i) => i.label),
      ["Overview", "Clusters", "Tokens", "Approvals", "Rollouts", "Versions", "Node pools", "Webhooks", "Audit log", "Teams"],
      "a team admin manages the team's webhook subscriptions",
    );
    assert.ok(
      !mayOpen(
        CONSOLE_PAGES.find((p) => p.route === "/settings")!,
        { fleetRole: null, teams: [{ ...teams[0]!, role: "admin" }] },
      ),
      "a team admin is no fleet admin",
    );
  });

  test("the Overview opens for team roles; the access page for whoever is signed in, even with no role", () => {
    const page = (route: string) => CONSOLE_PAGES.find((p) => p.route === route)!;
    const viewer = [{ teamId: "t1", team: "payments", role: "viewer" as const, selector: [] }];
    assert.ok(mayOpen(page("/"), { fleetRole: null, teams: viewer }), "a team viewer's Overview (their clusters)");
    assert.ok(!mayOpen(page("/"), { fleetRole: null, teams: [] }), "no role: no Overview");
    for (const access of [
      { fleetRole: null, teams: [] },
      { fleetRole: null, teams: viewer },
      { fleetRole: "admin" as const, teams: [] },
    ])
      assert.ok(mayOpen(page("/access"), access), JSON.stringify(access));
    assert.ok(!navItems({ fleetRole: "admin", teams: [] }).some((i) => i.href === "/access"), "reached from the user menu");
  });

  test("a requested path's role is its page's, or the closest enclosing page's", () => {
    const cases: [string, string][] = [
      ["/", "viewer"],
      ["/clusters", "viewer"],
      ["/clusters/cl_1/deregister", "viewer"],
      ["/rollouts", "viewer"],
      ["/rollouts/ro_1", "viewer"],
      ["/rollouts/new", "operator"],
      ["/rollouts/new/", "operator"],
      ["/audit", "operator"],
      ["/registration-requests", "operator"],
      ["/settings", "admin"],
      ["/settings/anything/deeper", "admin"],
      ["/settingsx", "viewer"],
      ["/no-such-page", "viewer"],
    ];
    for (const [pathname, role] of cases) assert.equal(pageRole(pathname), role, pathname);
  });
});
