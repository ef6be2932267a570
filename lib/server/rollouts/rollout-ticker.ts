import "server-only";
import { db } from "@/lib/server/db/client";
import { tickRollout } from "./tick-rollout";

/** One step of every running rollout. */
export async function tickRollouts(): Promise<void> {
  const running = await db().rollout.findMany({ where: { state: "Running" }, select: { id: true } });
  for (const r of running) await tickRollout(r.id);
}
