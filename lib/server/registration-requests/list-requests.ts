import "server-only";
import type { RegistrationRequest, RegistrationRequestState } from "@/lib/contracts/registration-requests";
import { ApiError } from "@/lib/server/api/errors";
import { db } from "@/lib/server/db/client";
import { countPending } from "./pending-count";
import { requestView, sameClusterAs, viewWithSameCluster } from "./request-view";

const LIST_LIMIT = 500;

/** Newest first, optionally one state; with how many are pending (the console's badge). */
export async function listRequests(q: { state?: RegistrationRequestState }) {
  const [rows, pending] = await Promise.all([
    db().registrationRequest.findMany({
      where: q.state ? { state: q.state } : {},
      orderBy: [{ firstSeenAt: "desc" }, { id: "desc" }],
      take: LIST_LIMIT,
    }),
    countPending(),
  ]);
  const same = await sameClusterAs(rows);
  return { items: rows.map((r) => requestView(r, same.get(r.id) ?? [])), pending };
}

export async function getRequest(id: string): Promise<RegistrationRequest> {
  const r = await db().registrationRequest.findUnique({ where: { id } });
  if (!r) throw new ApiError("not_found", "No registration request with this id.");
  return viewWithSameCluster(r);
}
