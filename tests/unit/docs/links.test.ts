// Every relative link in the README, DEVELOPING.md and docs/ names a file or folder of the
// repository, and every #anchor names a heading of its target: a moved or renamed doc fails here,
// not in a reader's browser. The README also links every doc under docs/.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";

const ROOT = process.cwd();

function markdownUnder(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) return markdownUnder(rel);
    return e.name.endsWith(".md") ? [rel] : [];
  });
}

const DOCS = ["README.md", "DEVELOPING.md", ...markdownUnder("docs")];

/** Markdown links and images, HTML src/href attributes; code blocks and inline code left out. */
function linksOf(text: string): string[] {
  const prose = text.replace(/^```[\s\S]*?^```/gm, "").replace(/`[^`\n]*`/g, "");
  const links = [...prose.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!);
  const attributes = [...prose.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
  return [...links, ...attributes];
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function anchorsOf(text: string): Set<string> {
  const prose = text.replace(/^```[\s\S]*?^```/gm, "");
  const anchors = [...prose.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) =>
    m[1]!
      .trim()
      .toLowerCase()
      .replace(/`/g, "")
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-"),
  );
  return new Set(anchors);
}

describe("documentation links", () => {
  for (const doc of DOCS) {
    test(`${doc}: every relative link resolves`, () => {
      const text = readFileSync(path.join(ROOT, doc), "utf8");
      const broken: string[] = [];
      for (const link of linksOf(text)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // http:, https:, mailto:
        const [target = "", anchor] = link.split("#");
        const file = target ? path.normalize(path.join(path.dirname(doc), decodeURIComponent(target))) : doc;
        if (file.startsWith("..")) {
          broken.push(`${link} (outside the repository)`);
          continue;
        }
        if (!existsSync(path.join(ROOT, file))) {
          broken.push(`${link} (no ${file})`);
          continue;
        }
        if (anchor && file.endsWith(".md") && statSync(path.join(ROOT, file)).isFile()) {
          const anchors = anchorsOf(readFileSync(path.join(ROOT, file), "utf8"));
          if (!anchors.has(anchor)) broken.push(`${link} (no heading #${anchor} in ${file})`);
        }
      }
      assert.deepEqual(broken, []);
    });
  }

  test("the README links every doc", () => {
    const linked = new Set(
      linksOf(readFileSync(path.join(ROOT, "README.md"), "utf8")).map((l) => path.normalize(l.split("#")[0]!)),
    );
    const missing = DOCS.filter((d) => d !== "README.md" && !linked.has(d));
    assert.deepEqual(missing, []);
  });
});
