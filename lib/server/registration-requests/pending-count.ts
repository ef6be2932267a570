import "server-only";
import { db } from "@/lib/server/db/client";
import { publish } from "@/lib/server/events/bus";

export function countPending(): Promise<number> {
  return db().registrationRequest.count({ where: { state: "pending" } });
}

/** Tells the live streams how many requests wait now (after a commit that changed the pending set). */
export async function publishPendingCount(): Promise<void> {
  publish({ type: "registration.requests", pending: await countPending(), at: new Date().toISOString() });
}
