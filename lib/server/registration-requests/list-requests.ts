import "server-only";
import type { RegistrationRequest, RegistrationRequestsQuery } from "@/lib/contracts/registration-requests";
import type { Labels } from "@/lib/domain/labels";
import { encodeRequestCursor, keyHashQuery } from "@/lib/domain/registration-approval";
import { matchesSelector, parseSelector, type Selector } from "@/lib/domain/selector";
import { withinScope } from "@/lib/domain/teams";
import { ApiError } from "@/lib/server/api/errors";
import { NO_SUCH_REQUEST } from "@/lib/server/auth/authorize";
import { db } from "@/lib/server/db/client";
import { countPending } from "./pending-count";
import { requestViews, viewOf, type RequestRow } from "./request-view";

type Where = NonNullable<NonNullable<Parameters<ReturnType<typeof db>["registrationRequest"]["findMany"]>[0]>["where"]>;

/**
 * What a search text finds: part of the name (names are lowercase DNS labels), of the source
 * address or of the token's name, the token's id, or the start of a key fingerprint.
 */
function search(q: string): Where {
  const keyHash = keyHashQuery(q);
  return {
    OR: [
      { name: { contains: q.toLowerCase() } },
      { sourceAddress: { contains: q } },
      { tokenName: { contains: q } },
      { tokenId: q },
      ...(keyHash ? [{ keyHash: { startsWith: keyHash } }] : []),
    ],
  };
}

type Cursor = { firstSeenAt: Date; id: string };

/** Rows after `cursor` in the queue's order (newest first: first ask, then id). */
function after(cursor: Cursor | undefined): Where[] {
  if (!cursor) return [];
  const { firstSeenAt, id } = cursor;
  return [{ OR: [{ firstSeenAt: { lt: firstSeenAt } }, { firstSeenAt, id: { lt: id } }] }];
}

const ORDER = [{ firstSeenAt: "desc" as const }, { id: "desc" as const }];

// Labels are JSON text in the row, the same on both engines, so a selector (the query's, or a team
// member's scope) is matched here: the queue is read in batches until a page is full, and one
// request reads at most SELECTOR_SCAN_ROWS rows (the page may then be short, with a cursor to read
// on from).
const SELECTOR_BATCH = 500;
const SELECTOR_SCAN_ROWS = 5_000;

type LabelTest = (labels: Labels) => boolean;

async function matchingPage(where: Where[], matches: LabelTest, limit: number, cursor: Cursor | undefined) {
  const matched: RequestRow[] = [];
  let last: RequestRow | undefined;
  let scanned = 0;
  for (;;) {
    const batch = await db().registrationRequest.findMany({
      where: { AND: [...where, ...after(last ?? cursor)] },
      orderBy: ORDER,
      take: SELECTOR_BATCH,
    });
    for (const r of batch) {
      last = r;
      scanned += 1;
      if (matches(JSON.parse(r.labels) as Labels)) matched.push(r);
      if (matched.length > limit) return { page: matched.slice(0, limit), more: true, readOn: null };
    }
    if (batch.length < SELECTOR_BATCH) return { page: matched, more: false, readOn: null };
    if (scanned >= SELECTOR_SCAN_ROWS) return { page: matched, more: true, readOn: last ?? null };
  }
}

/** The query's selector and the caller's scope, as one test of a request's labels; null: every request. */
function labelTest(selector: Selector | null, scope: readonly Selector[] | null): LabelTest | null {
  if (!selector && !scope) return null;
  return (labels) => (!selector || matchesSelector(labels, selector)) && withinScope(scope, labels);
}

/** One page of the queue and the row to read on from (null: the last page). */
async function queuePage(
  filters: Where[],
  q: RegistrationRequestsQuery,
  scope: readonly Selector[] | null,
): Promise<{ page: RequestRow[]; next: RequestRow | null }> {
  // A scope with no selector takes in nothing.
  if (scope && !scope.length) return { page: [], next: null };
  const matches = labelTest(q.selector ? parseSelector(q.selector) : null, scope);
  if (matches) {
    const found = await matchingPage(filters, matches, q.limit, q.cursor);
    return { page: found.page, next: found.more ? (found.readOn ?? found.page.at(-1) ?? null) : null };
  }
  const rows = await db().registrationRequest.findMany({
    where: { AND: [...filters, ...after(q.cursor)] },
    orderBy: ORDER,
    take: q.limit + 1,
  });
  const page = rows.slice(0, q.limit);
  return { page, next: rows.length > q.limit ? (page.at(-1) ?? null) : null };
}

/**
 * Newest first, a page at a time (keyset: first ask, then id), optionally one state (or every
 * decided one), one name, one token, what a search finds, or the labels a selector matches; with
 * how many are pending (the console's badge). `scope`: a team member's, whose queue (and count)
 * holds only the requests whose labels their teams' scopes take in; null: the whole fleet.
 */
export async function listRequests(q: RegistrationRequestsQuery, scope: readonly Selector[] | null = null) {
  const filters: Where[] = [];
  if (q.state === "decided") filters.push({ state: { not: "pending" } });
  else if (q.state) filters.push({ state: q.state });
  if (q.name) filters.push({ name: q.name });
  if (q.tokenId) filters.push({ tokenId: q.tokenId });
  if (q.q) filters.push(search(q.q));
  const [{ page, next }, pending] = await Promise.all([queuePage(filters, q, scope), countPending(scope)]);
  return { items: await requestViews(page, scope), nextCursor: next ? encodeRequestCursor(next) : null, pending };
}

/** One request; outside `scope` it reads exactly as an unknown id. */
export async function getRequest(id: string, scope: readonly Selector[] | null = null): Promise<RegistrationRequest> {
  const r = await db().registrationRequest.findUnique({ where: { id } });
  if (!r || !withinScope(scope, JSON.parse(r.labels) as Labels)) throw new ApiError("not_found", NO_SUCH_REQUEST);
  return viewOf(r, scope);
}
