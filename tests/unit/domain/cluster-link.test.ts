import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { clusterLinkTemplateProblem, expandClusterLink } from "@/lib/domain/cluster-link";
import { settingsPatchSchema } from "@/lib/domain/settings";
import { ApiError } from "@/lib/server/api/errors";
import { parseWith } from "@/lib/server/api/read-body";

const cluster = { id: "c-1/2", name: "prod eu", labels: { region: "eu-west-1", "team.example.com/owner": "a&b" } };

describe("clusterLinkTemplateProblem", () => {
  test("accepts http(s) templates with known placeholders", () => {
    for (const t of [
      "https://headlamp.example.com/c/{name}",
      "http://console.example.com/clusters/{id}?region={label:region}",
      "https://console.example.com:8443/{label:team.example.com/owner}/{name}",
      "https://console.example.com?c={name}",
      "https://console.example.com#/c/{name}",
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

  test("the scheme and host are fixed text: a placeholder before the end of the host is refused", () => {
    for (const t of [
      "https://{label:region}.console.example.com/{name}",
      "https://console.example.com{name}",
      "https://console.example.com{label:path}/x",
      "https://console.example.com:{label:port}/x",
      "https://{name}/",
      "https://user@{name}/",
      "https://console.example.com@{label:host}/",
      "https:{name}",
      "https:/{label:host}/x",
      "https:\\{name}\\x",
      "{label:scheme}://console.example.com/",
      "http{label:s}://console.example.com/",
    ])
      assert.match(clusterLinkTemplateProblem(t) ?? "accepted", /scheme and host must be fixed text|http or https URL/, t);
    assert.match(
      clusterLinkTemplateProblem("https://{label:region}.console.example.com/{name}")!,
      /placeholders may fill only the path, query and fragment/,
    );
  });

  test("the setting refuses a template taking its host from a label as a 400 naming the field", () => {
    const err = (() => {
      try {
        parseWith(settingsPatchSchema, { clusterLinkTemplate: "https://{label:region}.console.example.com/{name}" });
      } catch (e) {
        return e;
      }
    })();
    assert.ok(err instanceof ApiError, "refused");
    assert.equal(err.status, 400);
    assert.equal(err.code, "invalid_request");
    assert.deepEqual(
      (err.details as { field: string }[]).map((d) => d.field),
      ["clusterLinkTemplate"],
    );
    assert.match(JSON.stringify(err.details), /Cluster link template: The scheme and host must be fixed text/);
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

  test("values are percent-encoded: a name or label cannot add a host, user info or path segments", () => {
    const hostile = { id: "//evil.example/x", name: "@evil.example", labels: { region: "..\\evil.example" } };
    for (const template of [
      "https://h.example.com/{name}",
      "https://h.example.com/{id}",
      "https://h.example.com/{label:region}/{name}",
      "https://h.example.com/c?n={name}#{id}",
    ]) {
      const link = expandClusterLink(template, hostile);
      assert.ok(link?.url, template);
      assert.equal(new URL(link.url).host, "h.example.com", template);
      assert.equal(link.host, "h.example.com");
      assert.doesNotMatch(link.url.slice("https://h.example.com".length), /[@\\]|\/\//, template);
    }
    assert.equal(
      expandClusterLink("https://h.example.com/{id}/{name}", hostile)?.url,
      "https://h.example.com/%2F%2Fevil.example%2Fx/%40evil.example",
    );
  });

  test("a stored template whose host a placeholder fills gives no link", () => {
    assert.equal(expandClusterLink("https://{label:region}.console.example.com/{name}", cluster), null);
    assert.equal(expandClusterLink("https://console.example.com{name}", { ...cluster, name: ".evil.example" }), null);
  });

  test("no template, no link; a missing label gives no URL but names it", () => {
    assert.equal(expandClusterLink(null, cluster), null);
    assert.deepEqual(expandClusterLink("https://h.example.com/{label:env}/{label:env}", cluster), {
      url: null,
      missingLabels: ["env"],
    });
  });
});
