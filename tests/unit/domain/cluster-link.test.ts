import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { clusterLinkTemplateProblem, expandClusterLink } from "@/lib/domain/cluster-link";
import { settingsPatchSchema } from "@/lib/domain/settings";

const cluster = { id: "c-1/2", name: "prod eu", labels: { region: "eu-west-1", "team.example.com/owner": "a&b" } };

describe("clusterLinkTemplateProblem", () => {
  test("accepts http(s) templates with known placeholders", () => {
    for (const t of [
      "https://headlamp.example.com/c/{name}",
      "http://console.example.com/clusters/{id}?region={label:region}",
      "https://{label:region}.console.example.com/{label:team.example.com/owner}/{name}",
    ]) {
      assert.equal(clusterLinkTemplateProblem(t), null, t);
    }
  });

  test("refuses unknown placeholders, bad label keys, stray braces and non-web URLs", () => {
    assert.match(clusterLinkTemplateProblem("https://x.example.com/{cluster}")!, /\{cluster\} is not a placeholder/);
    assert.match(clusterLinkTemplateProblem("https://x.example.com/{label:-bad-}")!, /does not name a label key/);
    assert.match(clusterLinkTemplateProblem("https://x.example.com/{name")!, /brace/);
    assert.match(clusterLinkTemplateProblem("https://x.example.com/name}")!, /brace/);
    assert.match(clusterLinkTemplateProblem("javascript:alert({name})")!, /http or https URL/);
    assert.match(clusterLinkTemplateProblem("/relative/{name}")!, /http or https URL/);
    assert.match(clusterLinkTemplateProblem(`https://x.example.com/${"a".repeat(2100)}`)!, /at most 2048/);
  });

  test("the setting refuses a bad template with a 400-shaped issue and accepts null", () => {
    assert.equal(settingsPatchSchema.safeParse({ clusterLinkTemplate: null }).success, true);
    const bad = settingsPatchSchema.safeParse({ clusterLinkTemplate: "ftp://x/{name}" });
    assert.equal(bad.success, false);
    assert.match(bad.error!.issues[0]!.message, /^Cluster link template: /);
  });
});

describe("expandClusterLink", () => {
  test("fills in name, id and labels, each URL-encoded", () => {
    const link = expandClusterLink(
      "https://h.example.com/{name}/{id}?r={label:region}&o={label:team.example.com/owner}",
      cluster,
    );
    assert.deepEqual(link, {
      url: "https://h.example.com/prod%20eu/c-1%2F2?r=eu-west-1&o=a%26b",
      host: "h.example.com",
    });
  });

  test("no template, no link; a missing label gives no URL but names it", () => {
    assert.equal(expandClusterLink(null, cluster), null);
    assert.deepEqual(expandClusterLink("https://h.example.com/{label:env}/{label:env}", cluster), {
      url: null,
      missingLabels: ["env"],
    });
  });
});
