// The Cluster API source dialog's text fields: what each sends, what is refused before sending,
// and where the server's field errors land.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { CapiSourceView } from "@/lib/contracts/cluster-api";
import { ApiRequestError } from "@/lib/client/fetch-json";
import {
  createBody,
  draftOf,
  emptyDraft,
  parseLabelLines,
  parseMappings,
  parseNamespaces,
  serverFieldErrors,
  updatePatch,
} from "@/components/cluster-api/source-form";

const stored: CapiSourceView = {
  id: "src1",
  name: "mgmt-eu",
  server: "https://10.0.0.1:6443",
  namespaces: ["capi-a", "capi-b"],
  optInLabel: "fleet-registry/auto-register",
  labelMappings: [{ from: "cluster.x-k8s.io/environment", to: "env" }],
  fixedLabels: { region: "eu-west-1", tier: "gold" },
  requireApproval: false,
  agentOptions: { agentImage: "registry.example.com/agent:1.4.0" },
  allowPrivateTargets: true,
  enabled: true,
  servedVersion: "v1beta2",
  watching: true,
  lastSyncAt: null,
  lastError: null,
  steps: { "not-opted-in": 0, excluded: 0, "labels-refused": 0, provisioning: 0, joining: 0, applied: 0, joined: 0, deleting: 0 },
  createdBy: "admin@example.com",
  createdAt: "2026-12-01T00:00:00.000Z",
};

describe("Cluster API source form", () => {
  test("namespaces: commas or spaces, blanks and repeats dropped; empty is every namespace", () => {
    assert.deepEqual(parseNamespaces(" capi-a, capi-b ,,capi-a  team-x "), ["capi-a", "capi-b", "team-x"]);
    assert.deepEqual(parseNamespaces("  "), []);
  });

  test("fixed labels: key=value lines; the first bad line is named", () => {
    assert.deepEqual(parseLabelLines("region=eu-west-1\n\n tier = gold "), {
      labels: { region: "eu-west-1", tier: "gold" },
      problem: null,
    });
    assert.equal(parseLabelLines("region=eu\nnope").problem, 'Line 2: "nope" is not key=value.');
    assert.match(parseLabelLines("region=eu\nregion=us").problem ?? "", /^Line 2: region is given twice/);
    assert.match(parseLabelLines("Bad Key=x").problem ?? "", /^Line 1: /);
    assert.equal(parseLabelLines("empty=").problem, null, "an empty value is a value");
  });

  test("mappings: blank rows ignored, a half-filled or malformed one refused by its number", () => {
    assert.deepEqual(
      parseMappings([
        { from: " a/b ", to: "env" },
        { from: "", to: "" },
      ]),
      {
        mappings: [{ from: "a/b", to: "env" }],
        problem: null,
      },
    );
    assert.match(
      parseMappings([
        { from: "", to: "" },
        { from: "x", to: "" },
      ]).problem ?? "",
      /^Mapping 2: name both/,
    );
    assert.match(parseMappings([{ from: "not a key", to: "env" }]).problem ?? "", /^Mapping 1: /);
  });

  test("a create needs a name and a kubeconfig, and sends every setting", () => {
    assert.deepEqual(Object.keys(createBody(emptyDraft()).errors).sort(), ["kubeconfig", "name"]);
    const { body } = createBody({
      ...emptyDraft(),
      name: " mgmt ",
      kubeconfig: "apiVersion: v1",
      namespaces: "a, b",
      httpsProxy: " ",
    });
    assert.deepEqual(body, {
      name: "mgmt",
      kubeconfig: "apiVersion: v1",
      enabled: true,
      namespaces: ["a", "b"],
      optInLabel: "fleet-registry/auto-register",
      labelMappings: [],
      fixedLabels: {},
      requireApproval: false,
      allowPrivateTargets: false,
      agentOptions: {},
    });
  });

  test("an edit starts from the stored source without its kubeconfig, and sends only what changed", () => {
    const draft = draftOf(stored);
    assert.equal(draft.kubeconfig, "");
    assert.equal(draft.namespaces, "capi-a, capi-b");
    assert.deepEqual(updatePatch(stored, draft), { patch: {}, errors: {} });
    // Labels in another order are the same labels.
    assert.deepEqual(updatePatch(stored, { ...draft, fixedLabels: "tier=gold\nregion=eu-west-1" }).patch, {});
    assert.deepEqual(
      updatePatch(stored, { ...draft, kubeconfig: "new", namespaces: "", agentImage: "", requireApproval: true }).patch,
      { kubeconfig: "new", namespaces: [], requireApproval: true, agentOptions: {} },
    );
  });

  test("the server's details land at their fields (agent options by their own name)", () => {
    const err = new ApiRequestError(400, "invalid_request", "The request body is invalid.", [
      { field: "kubeconfig", message: "is not https" },
      { field: "labelMappings.0", message: "bad key" },
      { field: "agentOptions.httpsProxy", message: "Invalid url" },
      { field: "somethingElse", message: "ignored" },
    ]);
    assert.deepEqual(serverFieldErrors(err), { kubeconfig: "is not https", labelMappings: "bad key", httpsProxy: "Invalid url" });
    assert.deepEqual(serverFieldErrors(new Error("x")), {});
  });
});
