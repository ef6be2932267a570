// The per-cluster link out (to Headlamp, a cloud console, a runbook): one URL template set by an
// admin, expanded with each cluster's name, id and labels. Pure: the settings validation, the
// cluster page and their tests use the same functions.

import { labelKeyProblem } from "./labels";

export const MAX_CLUSTER_LINK_TEMPLATE = 2048;

const PLACEHOLDER = /\{([^{}]*)\}/g;

export type LinkTemplateProblem = { message: string };

/** A cluster template's pieces: fixed text and the {name}, {id} and {label:<key>} placeholders. */
export type TemplatePart = { kind: "text"; text: string } | { kind: "name" } | { kind: "id" } | { kind: "label"; key: string };

/** The template's parts, or the first problem with a placeholder (the kubectl context template reads the same syntax). */
export function parseClusterTemplate(template: string): TemplatePart[] | LinkTemplateProblem {
  const parts: TemplatePart[] = [];
  let last = 0;
  for (const m of template.matchAll(PLACEHOLDER)) {
    parts.push({ kind: "text", text: template.slice(last, m.index) });
    const inner = m[1]!;
    if (inner === "name") parts.push({ kind: "name" });
    else if (inner === "id") parts.push({ kind: "id" });
    else if (inner.startsWith("label:")) {
      const key = inner.slice("label:".length);
      const problem = labelKeyProblem(key);
      if (problem) return { message: `{${inner}} does not name a label key (${problem}).` };
      parts.push({ kind: "label", key });
    } else return { message: `{${inner}} is not a placeholder; use {name}, {id} or {label:<key>}.` };
    last = m.index + m[0].length;
  }
  const rest = template.slice(last);
  if (/[{}]/.test(rest) || parts.some((p) => p.kind === "text" && /[{}]/.test(p.text))) {
    return { message: "A brace does not close a placeholder; use {name}, {id} or {label:<key>}." };
  }
  parts.push({ kind: "text", text: rest });
  return parts;
}

function isWebUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return (u.protocol === "https:" || u.protocol === "http:") && u.hostname !== "";
  } catch {
    return false;
  }
}

// What the URL parser ignores around and inside a URL: leading and trailing controls and spaces,
// tabs and newlines anywhere.
const PARSER_IGNORES = /^[\u0000-\u0020]+|[\t\n\r]/g;
// `http(s)://`, the authority, and the character that ends it (a backslash is a slash to the parser).
const FIXED_AUTHORITY = /^https?:\/\/[^/\\?#]+[/\\?#]/i;

/**
 * The origin the admin's fixed text names, or null when a placeholder could change it. The text
 * before the first placeholder must hold the scheme, the host (and port) and the `/`, `?` or `#`
 * that ends them, so a cluster's name or labels fill only the path, query and fragment: a link
 * never leads to a host a label chose.
 */
function fixedOrigin(parts: readonly TemplatePart[]): string | null {
  // parseClusterTemplate() starts with the text before the first placeholder: the whole template when there is none.
  const head = parts[0]?.kind === "text" ? parts[0].text : "";
  const fixed = parts.length === 1 ? head : FIXED_AUTHORITY.exec(head.replace(PARSER_IGNORES, ""))?.[0];
  return fixed && isWebUrl(fixed) ? new URL(fixed).origin : null;
}

/**
 * Why a template cannot be saved, or null. It must use only known placeholders, keep its scheme
 * and host fixed, and be an http(s) URL once they are filled in (checked with sample values, as
 * any cluster would fill them).
 */
export function clusterLinkTemplateProblem(template: string): string | null {
  if (template.length > MAX_CLUSTER_LINK_TEMPLATE) return `The template is at most ${MAX_CLUSTER_LINK_TEMPLATE} characters.`;
  const parts = parseClusterTemplate(template);
  if (!Array.isArray(parts)) return parts.message;
  const sample = fill(parts, { id: "c-sample", name: "sample-cluster", labels: new Proxy({}, { get: () => "value" }) });
  const origin = fixedOrigin(parts);
  const web = isWebUrl(sample);
  if (web && origin === new URL(sample).origin) return null;
  // An http(s) template with a placeholder in its host or port hears that, not that it is no URL.
  if (web || (origin === null && /^[\u0000-\u0020]*https?:/i.test(template)))
    return "The scheme and host must be fixed text: placeholders may fill only the path, query and fragment, after the / that ends the host (e.g. https://headlamp.example.com/c/{name}).";
  return "The template must give an http or https URL, e.g. https://headlamp.example.com/c/{name}.";
}

function fill(parts: readonly TemplatePart[], c: { id: string; name: string; labels: Record<string, string> }): string {
  return parts
    .map((p) => {
      if (p.kind === "text") return p.text;
      if (p.kind === "name") return encodeURIComponent(c.name);
      if (p.kind === "id") return encodeURIComponent(c.id);
      return encodeURIComponent(c.labels[p.key]!);
    })
    .join("");
}

export type ClusterLink = { url: string; host: string } | { url: null; missingLabels: string[] };

/**
 * The template filled in for one cluster, each value URL-encoded; null when no template is set.
 * A cluster without a label the template names gets no URL (and the keys it lacks).
 */
export function expandClusterLink(
  template: string | null,
  cluster: { id: string; name: string; labels: Record<string, string> },
): ClusterLink | null {
  if (!template) return null;
  const parts = parseClusterTemplate(template);
  if (!Array.isArray(parts)) return null;
  const missingLabels = parts.flatMap((p) => (p.kind === "label" && !Object.hasOwn(cluster.labels, p.key) ? [p.key] : []));
  if (missingLabels.length) return { url: null, missingLabels: [...new Set(missingLabels)] };
  const url = fill(parts, cluster);
  // A template saved before its host had to be fixed text gives no link rather than a label's host.
  if (!isWebUrl(url) || new URL(url).origin !== fixedOrigin(parts)) return null;
  return { url, host: new URL(url).host };
}
