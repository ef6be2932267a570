import "server-only";
import { db } from "@/lib/server/db/client";
import { log } from "@/lib/server/log";
import { tickRollout } from "./tick-rollout";

/** One step of every running rollout. */
export async function tickRollouts(): Promise<void> {
  const running = await db().rollout.findMany({ where: { state: "Running" }, select: { id: true } });
  for (const r of running) await tickRollout(r.id);
}

/** Ticks the running rollouts every `intervalMs`, never two ticks at once, until the returned stop function is called. */
export function startRolloutEngine(intervalMs = 2000): () => Promise<void> {
  let running: Promise<unknown> = Promise.resolve();
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    running = tickRollouts()
      .catch((err) => log.error("rollout tick failed", { error: String(err) }))
      .finally(() => (busy = false));
  }, intervalMs);
  return async () => {
    clearInterval(timer);
    await running;
  };
}
