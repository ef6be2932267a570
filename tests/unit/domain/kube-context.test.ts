import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { agentKubectlCommands, expandKubeContext, kubeContextTemplateProblem } from "@/lib/domain/kube-context";
import { settingsPatchSchema } from "@/lib/domain/settings";

const cluster = { id: "c-1", name: "prod-eu-1", labels: { region: "europe-west1", env: "prod" } };

describe("kubeContextTemplateProblem", () => {
  it("accepts the cloud providers' context names", () => {
    for (const t of [
      "{name}",
      "gke_my-project_{label:region}_{name}",
      "arn:aws:eks:eu-west-1:123456789012:cluster/{name}",
      "kind-{name}",
    ])
      assert.equal(kubeContextTemplateProblem(t), null, t);
  });

  it("refuses what would not paste as one shell word, and unknown placeholders", () => {
    assert.match(kubeContextTemplateProblem("my context {name}")!, /no spaces or quotes/);
    assert.match(kubeContextTemplateProblem("ctx-{name};rm")!, /no spaces or quotes/);
    assert.match(kubeContextTemplateProblem("{cluster}")!, /\{cluster\} is not a placeholder/);
    assert.match(kubeContextTemplateProblem("x".repeat(254))!, /at most 253/);
  });

  it("is a setting whose refusal names it", () => {
    const bad = settingsPatchSchema.safeParse({ kubeContextTemplate: "a b" });
    assert.equal(bad.success, false);
    assert.match(bad.error!.issues[0]!.message, /^kubectl context template: /);
    assert.equal(settingsPatchSchema.safeParse({ kubeContextTemplate: null }).success, true);
  });
});

describe("expandKubeContext", () => {
  it("fills the template with the cluster's name, id and labels", () => {
    assert.deepEqual(expandKubeContext("gke_p_{label:region}_{name}", cluster), { context: "gke_p_europe-west1_prod-eu-1" });
    assert.deepEqual(expandKubeContext("{id}", cluster), { context: "c-1" });
    assert.equal(expandKubeContext(null, cluster), null);
  });

  it("gives no context, and the missing keys, when the cluster lacks a label", () => {
    assert.deepEqual(expandKubeContext("{label:zone}-{name}", cluster), { context: null, missingLabels: ["zone"] });
  });
});

describe("agentKubectlCommands", () => {
  it("names the context in every command, in the agent's namespace", () => {
    const commands = agentKubectlCommands("gke_p_eu_prod-eu-1");
    assert.deepEqual(
      commands.map((c) => c.id),
      ["pods", "logs", "describe", "lease", "secrets", "events"],
    );
    for (const c of commands) assert.match(c.command, /^kubectl --context gke_p_eu_prod-eu-1 -n fleet-system /);
    assert.match(commands.find((c) => c.id === "lease")!.command, /get lease fleet-agent/);
  });

  it("never prints a Secret's data", () => {
    const secrets = agentKubectlCommands(null).find((c) => c.id === "secrets")!.command;
    assert.match(secrets, /^kubectl -n fleet-system get secrets fleet-agent-state fleet-agent-token/);
    assert.doesNotMatch(secrets, /-o\s*(yaml|json)|jsonpath/);
  });
});
