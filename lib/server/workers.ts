import "server-only";
import { startStatusSweeper } from "@/lib/server/heartbeats/status-sweeper";
import { flushHeartbeats } from "@/lib/server/heartbeats/heartbeat-writer";
import { pruneAttempts } from "@/lib/server/clusters/registration-attempts";
import { startRatePublisher } from "@/lib/server/events/fleet-summary";
import { pruneFleetHistory, sampleFleet } from "@/lib/server/fleet/overview";
import { startEnrollmentEvaluator } from "@/lib/server/lifecycle/enrollment";
import { startRolloutEngine } from "@/lib/server/rollouts/rollout-ticker";
import { pruneLoginThrottles } from "@/lib/server/auth/login-throttle";
import { pruneRevokedSessions } from "@/lib/server/auth/sessions";
import { log } from "@/lib/server/log";

/** Background work of one instance. Every job is safe to run on several instances at once. */
export function startWorkers(): () => Promise<void> {
  const stopSweeper = startStatusSweeper(1000);
  const stopRates = startRatePublisher();
  const stopEnrollment = startEnrollmentEvaluator();
  const stopRollouts = startRolloutEngine();
  const prune = setInterval(() => {
    pruneAttempts().catch((err) => log.error("pruning registration attempts failed", { error: String(err) }));
    pruneFleetHistory().catch((err) => log.error("pruning fleet history failed", { error: String(err) }));
    pruneRevokedSessions().catch((err) => log.error("pruning revoked sessions failed", { error: String(err) }));
    pruneLoginThrottles().catch((err) => log.error("pruning sign-in throttles failed", { error: String(err) }));
  }, 10 * 60_000);
  prune.unref();
  const sample = () => sampleFleet().catch((err) => log.error("fleet sample failed", { error: String(err) }));
  void sample();
  const sampler = setInterval(sample, 15_000);
  sampler.unref();
  return async () => {
    clearInterval(prune);
    clearInterval(sampler);
    stopRates();
    await stopSweeper();
    await stopEnrollment();
    await stopRollouts();
    await flushHeartbeats(true);
  };
}
