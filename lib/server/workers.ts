import "server-only";
import { startStatusSweeper } from "@/lib/server/heartbeats/status-sweeper";
import { flushHeartbeats } from "@/lib/server/heartbeats/heartbeat-writer";
import { pruneAttempts } from "@/lib/server/clusters/registration-attempts";
import { startRatePublisher } from "@/lib/server/events/fleet-summary";
import { log } from "@/lib/server/log";

/** Background work of one instance. Every job is safe to run on several instances at once. */
export function startWorkers(): () => Promise<void> {
  const stopSweeper = startStatusSweeper(1000);
  const stopRates = startRatePublisher();
  const prune = setInterval(() => {
    pruneAttempts().catch((err) => log.error("pruning registration attempts failed", { error: String(err) }));
  }, 10 * 60_000);
  prune.unref();
  return async () => {
    clearInterval(prune);
    stopRates();
    await stopSweeper();
    await flushHeartbeats();
  };
}
