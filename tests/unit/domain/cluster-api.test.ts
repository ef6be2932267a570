import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  decideCapiStep,
  fleetClusterName,
  mapLabels,
  optedIn,
  readCapiCluster,
  retryDelayMs,
  type StepFacts,
} from "@/lib/domain/cluster-api";

const meta = {
  namespace: "team-a",
  name: "prod-eu",
  uid: "u-1",
  resourceVersion: "7",
  creationTimestamp: "2026-12-07T00:00:00Z",
};

describe("reading a CAPI Cluster", () => {
  test("v1beta1: conditions, controlPlaneReady, infrastructureRef kind and topology class", () => {
    const facts = readCapiCluster({
      apiVersion: "cluster.x-k8s.io/v1beta1",
      kind: "Cluster",
      metadata: { ...meta, labels: { env: "prod" }, annotations: { a: "b" } },
      spec: {
        infrastructureRef: { apiVersion: "infrastructure.cluster.x-k8s.io/v1beta2", kind: "AWSCluster", name: "x" },
        topology: { class: "eks-default", version: "v1.30.2" },
      },
      status: {
        phase: "Provisioned",
        infrastructureReady: true,
        conditions: [
          { type: "Ready", status: "True" },
          { type: "InfrastructureReady", status: "True" },
          { type: "ControlPlaneInitialized", status: "True" },
          { type: "ControlPlaneReady", status: "False", reason: "ScalingUp", severity: "Info" },
        ],
      },
    });
    assert.ok(facts);
    assert.equal(facts.controlPlaneInitialized, true);
    assert.equal(facts.infrastructureProvider, "AWSCluster");
    assert.equal(facts.topologyClass, "eks-default");
    assert.equal(facts.kubernetesVersion, "v1.30.2");
    assert.deepEqual(
      facts.conditions.map((c) => `${c.type}=${c.status}`),
      ["InfrastructureReady=True", "ControlPlaneInitialized=True", "ControlPlaneReady=False"],
    );
    assert.equal(facts.deletingSince, null);
  });

  test("v1beta2: status.initialization, classRef, ControlPlaneAvailable shown as ControlPlaneReady", () => {
    const facts = readCapiCluster({
      apiVersion: "cluster.x-k8s.io/v1beta2",
      kind: "Cluster",
      metadata: { ...meta, deletionTimestamp: "2026-12-07T01:00:00Z" },
      spec: {
        infrastructureRef: { apiGroup: "infrastructure.cluster.x-k8s.io", kind: "DockerCluster", name: "x" },
        topology: { classRef: { name: "quick-start" }, version: "v1.31.0" },
      },
      status: {
        phase: "Deleting",
        initialization: { infrastructureProvisioned: true, controlPlaneInitialized: false },
        conditions: [{ type: "ControlPlaneAvailable", status: "False", reason: "NotAvailable" }],
      },
    });
    assert.ok(facts);
    assert.equal(facts.controlPlaneInitialized, false);
    assert.equal(facts.topologyClass, "quick-start");
    assert.equal(facts.infrastructureProvider, "DockerCluster");
    assert.equal(facts.deletingSince, "2026-12-07T01:00:00Z");
    assert.deepEqual(
      facts.conditions.map((c) => `${c.type}=${c.status}`),
      ["InfrastructureReady=True", "ControlPlaneReady=False"],
    );
  });

  test("an object without namespace, name or uid is not a Cluster", () => {
    assert.equal(readCapiCluster({ metadata: { name: "x" } }), null);
    assert.equal(readCapiCluster("nope"), null);
  });
});

describe("names, opt-in and labels", () => {
  test("fleet names are qualified by source and namespace, and stay DNS labels when long", () => {
    assert.equal(fleetClusterName("mgmt-eu", "default", "prod"), "mgmt-eu-default-prod");
    const long = fleetClusterName("mgmt", "a-very-long-namespace-name-for-teams", "and-a-long-cluster-name-too");
    assert.ok(long.length <= 63 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(long), long);
    const other = fleetClusterName("mgmt", "a-very-long-namespace-name-for-teams", "and-a-long-cluster-name-two");
    assert.notEqual(long, other, "two long names that share a prefix do not meet");
  });

  test("opted in by the Cluster's label or its Namespace's, with the value true only", () => {
    const key = "fleet-registry/auto-register";
    assert.equal(optedIn({ [key]: "true" }, undefined, key), true);
    assert.equal(optedIn({}, { [key]: "true" }, key), true);
    assert.equal(optedIn({ [key]: "yes" }, {}, key), false);
    assert.equal(optedIn({}, undefined, key), false);
  });

  test("mapping: fixed labels, mapped values, and the required set checked before import", () => {
    const rules = [
      { from: "cluster.x-k8s.io/env", to: "env" },
      { from: "team", to: "owner-team" },
    ];
    const ok = mapLabels({ "cluster.x-k8s.io/env": "prod", team: "payments", other: "x" }, rules, { region: "eu" }, [
      "env",
      "region",
    ]);
    assert.deepEqual(ok, { labels: { region: "eu", env: "prod", "owner-team": "payments" }, problem: null });
    const missing = mapLabels({ team: "payments" }, rules, {}, ["env"]);
    assert.match(missing.problem ?? "", /requires the label env/);
    const bad = mapLabels({ team: "not a value!" }, rules, {}, []);
    assert.match(bad.problem ?? "", /cannot be the fleet label owner-team/);
  });
});

describe("the import's next step", () => {
  const base: StepFacts = {
    gone: false,
    deleting: false,
    optedIn: true,
    excluded: false,
    controlPlaneInitialized: false,
    labelProblem: null,
    fleet: null,
    appliedAt: null,
  };
  const fleet = (phase: string, registered = false) => ({ phase, registered });

  test("from opt-in to joined", () => {
    assert.deepEqual(decideCapiStep({ ...base, optedIn: false }), { step: "not-opted-in", action: null });
    assert.deepEqual(decideCapiStep(base), { step: "provisioning", action: "precreate" });
    assert.deepEqual(decideCapiStep({ ...base, fleet: fleet("Provisioning") }), { step: "provisioning", action: null });
    assert.deepEqual(decideCapiStep({ ...base, controlPlaneInitialized: true, fleet: fleet("Provisioning") }), {
      step: "joining",
      action: "join",
    });
    const applied = { ...base, controlPlaneInitialized: true, fleet: fleet("Provisioning"), appliedAt: new Date() };
    assert.deepEqual(decideCapiStep(applied), { step: "applied", action: null });
    assert.deepEqual(decideCapiStep({ ...applied, fleet: fleet("Active", true) }), { step: "joined", action: null });
  });

  test("a mark or refused labels keep it out; an imported cluster is followed even if its opt-in goes", () => {
    assert.deepEqual(decideCapiStep({ ...base, excluded: true }), { step: "excluded", action: null });
    assert.deepEqual(decideCapiStep({ ...base, labelProblem: "x" }), { step: "labels-refused", action: null });
    assert.deepEqual(decideCapiStep({ ...base, optedIn: false, fleet: fleet("Active", true) }), { step: "joined", action: null });
  });

  test("deletion deregisters once, and gone removes the record or forgets the row", () => {
    assert.deepEqual(decideCapiStep({ ...base, deleting: true, fleet: fleet("Active", true) }), {
      step: "deleting",
      action: "deregister",
    });
    assert.deepEqual(decideCapiStep({ ...base, deleting: true, fleet: fleet("Deregistration") }), {
      step: "deleting",
      action: null,
    });
    assert.deepEqual(decideCapiStep({ ...base, deleting: true }), { step: "deleting", action: null });
    assert.deepEqual(decideCapiStep({ ...base, gone: true, fleet: fleet("Deregistration") }), {
      step: "deleting",
      action: "remove",
    });
    assert.deepEqual(decideCapiStep({ ...base, gone: true, excluded: true }), { step: "deleting", action: "forget" });
  });

  test("retries back off from 10 s, doubling, to at most 5 min", () => {
    assert.deepEqual([1, 2, 3, 4, 5, 6, 10].map(retryDelayMs), [10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000]);
  });
});
