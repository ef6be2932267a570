// The change gate in the console: the Groups table's Gate column and a group's gate view give the
// answer GET /api/v1/gate gives for the same query; the tolerance is the API's own parameters.
import { SAME_ORIGIN, asRole, expect, test } from "../fixtures";
import { execSql, sqlTimestamp } from "../support/database";
import { saveScreenshots } from "../support/screenshots";

test.describe("the change gate per group", () => {
  test.use(asRole("viewer"));

  test("the Gate column and the gate view say what the API says", async ({ page, apiAs }, testInfo) => {
    test.setTimeout(90_000);
    const run = `gate${Date.now().toString(36)}`;
    const now = sqlTimestamp();
    const old = sqlTimestamp(new Date(Date.now() - 10 * 60_000));
    // Two clusters heartbeating and one silent for ten minutes, labelled for this run only.
    const rows = [0, 1, 2].map((i): [string, string, string] => [`cl_${run}${i}`, `${run}-${i}`, i === 2 ? old : now]);
    await execSql(
      `INSERT INTO "Cluster" ("id", "name", "phase", "registeredAt", "lastHeartbeatAt", "apiServerHealth", "createdAt", "updatedAt") VALUES ${rows.map(() => "(?, ?, 'Active', ?, ?, 'ok', ?, ?)").join(", ")}`,
      rows.flatMap(([id, name, heard]) => [id, name, now, heard, now, now]),
    );
    await execSql(
      `INSERT INTO "ClusterLabel" ("clusterId", "key", "value") VALUES ${rows.map(() => "(?, ?, ?)").join(", ")}`,
      rows.flatMap(([id]) => [id, "gatee2e", run]),
    );
    const operator = await apiAs("operator");
    const viewer = await apiAs("viewer");
    const created = await operator.post("/api/v1/groups", {
      data: { name: run, selector: `gatee2e=${run}` },
      headers: SAME_ORIGIN,
    });
    expect(created.status(), await created.text()).toBe(201);
    const api = async (query: string) =>
      (await (await viewer.get(`/api/v1/gate?group=${run}${query}`)).json()) as {
        pass: boolean;
        summary: string;
        tolerance: { unready: number; total: number };
      };

    // None of them is enrolled (no env or region), and one is NotReady: the gate fails.
    const strict = await api("");
    expect(strict.pass).toBe(false);
    await page.goto("/groups");
    const gateCell = page.locator(`tr[data-group="${run}"]`).getByTestId("group-gate");
    await expect(gateCell).toContainText("Fail", { timeout: 30_000 });
    await expect(gateCell).toContainText(`${strict.tolerance.unready} of ${strict.tolerance.total} failing`);
    await gateCell.click();

    await expect(page).toHaveURL(new RegExp(`/groups/${run}/gate$`));
    await expect(page.getByTestId("gate-summary")).toHaveText(strict.summary, { timeout: 30_000 });
    await expect(page.getByTestId("gate-verdict")).toContainText("Fail");
    await expect(page.getByTestId("gate-failing-list")).toContainText(`${run}-2`);
    await expect(page.getByTestId("gate-failing-list")).toContainText("status is NotReady, not Ready");

    // A tolerance of all three: the page's URL carries it and the verdict is the API's with it.
    await page.getByLabel("Unready clusters allowed").fill("3");
    await page.getByRole("button", { name: "Apply" }).click();
    await expect(page).toHaveURL(/maxUnready=3/);
    const tolerant = await api("&maxUnready=3");
    expect(tolerant.pass).toBe(true);
    await expect(page.getByTestId("gate-summary")).toHaveText(tolerant.summary);
    await expect(page.getByTestId("gate-verdict")).toContainText("Pass");
    await saveScreenshots(page, testInfo, "group-gate");
  });
});
