import "server-only";
import type { RegistrationRequest, RegistrationRequestsQuery } from "@/lib/contracts/registration-requests";
import { encodeRequestCursor, keyHashQuery } from "@/lib/domain/registration-approval";
import { ApiError } from "@/lib/server/api/errors";
import { db } from "@/lib/server/db/client";
import { countPending } from "./pending-count";
import { requestViews, viewOf } from "./request-view";

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

/**
 * Newest first, a page at a time (keyset: first ask, then id), optionally one state (or every
 * decided one), one name, or what a search finds; with how many are pending (the console's badge).
 */
export async function listRequests(q: RegistrationRequestsQuery) {
  const filters: Where[] = [];
  if (q.state === "decided") filters.push({ state: { not: "pending" } });
  else if (q.state) filters.push({ state: q.state });
  if (q.name) filters.push({ name: q.name });
  if (q.q) filters.push(search(q.q));
  if (q.cursor) {
    const { firstSeenAt, id } = q.cursor;
    filters.push({ OR: [{ firstSeenAt: { lt: firstSeenAt } }, { firstSeenAt, id: { lt: id } }] });
  }
  const [rows, pending] = await Promise.all([
    db().registrationRequest.findMany({
      where: { AND: filters },
      orderBy: [{ firstSeenAt: "desc" }, { id: "desc" }],
      take: q.limit + 1,
    }),
    countPending(),
  ]);
  const page = rows.slice(0, q.limit);
  const last = page.at(-1);
  return {
    items: await requestViews(page),
    nextCursor: rows.length > q.limit && last ? encodeRequestCursor(last) : null,
    pending,
  };
}

export async function getRequest(id: string): Promise<RegistrationRequest> {
  const r = await db().registrationRequest.findUnique({ where: { id } });
  if (!r) throw new ApiError("not_found", "No registration request with this id.");
  return viewOf(r);
}
