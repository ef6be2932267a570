// Relative times as the server renders them: against the page's render instant when it is given
// (the browser hydrates against the same one), else against the clock at each render, never a
// time kept from when the module loaded.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createElement } from "react";
import { renderToString } from "react-dom/server";
import { NowProvider, RelativeTime } from "@/components/ui/relative-time";
import { TokenExpiry } from "@/components/tokens/token-expiry";

const T = Date.parse("2026-12-06T08:00:00.000Z");
const ago = (ms: number) => new Date(T - ms).toISOString();
/** The text of an element rendered on the server, React's <!-- --> separators removed. */
const text = (el: ReturnType<typeof createElement>) => renderToString(el).replace(/<[^>]*>/g, "");

describe("relative times rendered on the server", () => {
  test("read against the page's render instant", () => {
    assert.equal(
      text(createElement(NowProvider, { now: T }, createElement(RelativeTime, { iso: ago(90_000) }))),
      "1 min 30 s ago",
    );
    // Another page, rendered later: its own instant, not the first one's.
    assert.equal(
      text(createElement(NowProvider, { now: T + 3_600_000 }, createElement(RelativeTime, { iso: ago(90_000) }))),
      "1 h 1 min ago",
    );
    assert.equal(
      text(
        createElement(
          NowProvider,
          { now: T },
          createElement(TokenExpiry, { expiresAt: new Date(T + 30 * 86_400_000).toISOString(), revokedAt: ago(600_000) }),
        ),
      ),
      "revoked 10 min ago",
    );
  });

  test("without one, against the clock at each render, not at module load", () => {
    const realNow = Date.now;
    try {
      // The server has been up an hour since this module loaded.
      Date.now = () => T;
      assert.equal(text(createElement(RelativeTime, { iso: ago(20 * 60_000) })), "20 min ago");
      Date.now = () => T + 60_000;
      assert.equal(text(createElement(RelativeTime, { iso: ago(20 * 60_000) })), "21 min ago");
    } finally {
      Date.now = realNow;
    }
  });
});
