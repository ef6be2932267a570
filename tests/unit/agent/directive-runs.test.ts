// A directive's failure as the agent reports it (its log line and the ack's reason, which the
// console shows): readable words whatever was thrown or answered, never "[object Object]".
import assert from "node:assert/strict";
import { test } from "node:test";
import { DirectiveRuns, type DirectiveState } from "@/lib/agent/kube/directive-state";
import { KubeApiError, kubeStatus } from "@/lib/agent/kube/kube-client";

function runs(step: () => Promise<DirectiveState>) {
  const lines: string[] = [];
  const r = new DirectiveRuns({ now: () => 0, log: (_level, code, message) => lines.push(`${code} ${message}`), step });
  r.start({ id: "d1", type: "drainNodePool" });
  return { r, lines };
}

test("a rejection with a plain object is logged by what it says", async () => {
  const { r, lines } = runs(async () => {
    throw { code: "ECONNRESET", message: "socket hang up" };
  });
  await r.progress();
  assert.equal(lines.length, 1);
  assert.match(lines[0]!, /^KUBE_API_ERROR directive drainNodePool will be retried: socket hang up$/);
  const { r: other, lines: more } = runs(async () => {
    throw { status: 500 };
  });
  await other.progress();
  assert.match(more[0]!, /will be retried: \{"status":500\}$/);
});

test("an error answer whose Status fields are not text fails the directive with readable words", async () => {
  // What a proxy or an admission webhook in front of the API server may answer instead of a Status.
  const body = { kind: "Status", reason: { code: "Forbidden" }, message: { text: "denied by policy" }, details: { causes: "x" } };
  const status = kubeStatus(body);
  assert.deepEqual(status, { reason: undefined, message: undefined, causes: [] });
  const { r, lines } = runs(async () => {
    throw new KubeApiError(
      403,
      status.reason ?? "HTTP 403",
      `evictPod failed with HTTP 403${status.message ? `: ${status.message}` : ""}`,
      "evictPod",
    );
  });
  await r.progress();
  const [ack] = r.ackEntries(["d1"]);
  assert.deepEqual(ack, { id: "d1", ok: false, reason: "evictPod failed with HTTP 403" });
  assert.ok(
    lines.every((l) => !l.includes("[object")),
    lines.join("\n"),
  );
  assert.deepEqual(
    kubeStatus({ reason: "Forbidden", message: "no", details: { causes: [{ reason: "NamespaceTerminating" }, null] } }),
    {
      reason: "Forbidden",
      message: "no",
      causes: ["NamespaceTerminating"],
    },
  );
});

test("a failed step's reason that is not text is sent as text", async () => {
  const { r } = runs(async () => ({ state: "failed", reason: { why: "quota" } as unknown as string }));
  await r.progress();
  assert.deepEqual(r.ackEntries(["d1"]), [{ id: "d1", ok: false, reason: '{"why":"quota"}' }]);
});

test("while the agent does not hold its Lease, running directives wait (unacknowledged), with one line", async () => {
  const lines: string[] = [];
  let held = false;
  let steps = 0;
  const r = new DirectiveRuns({
    now: () => 0,
    log: (_level, code, message) => lines.push(`${code} ${message}`),
    step: async () => {
      steps += 1;
      return { state: "done" };
    },
    mayAct: () => held,
  });
  r.start({ id: "d1", type: "upgrade" });
  await r.progress();
  await r.progress();
  assert.equal(steps, 0, "nothing changed in the cluster");
  assert.deepEqual(r.ackEntries(["d1"]), [], "not acknowledged: the control plane repeats it");
  assert.deepEqual(lines, ["DIRECTIVE_WAITING directives wait until this agent holds its Lease again"]);
  held = true;
  await r.progress();
  assert.equal(steps, 1);
  assert.deepEqual(r.ackEntries(["d1"]), ["d1"]);
});
