import "server-only";
import { sweepStatuses } from "@/lib/server/heartbeats/status-sweeper";
import { flushHeartbeats } from "@/lib/server/heartbeats/heartbeat-writer";
import { ratePublisherJob } from "@/lib/server/events/fleet-summary";
import { sampleFleet } from "@/lib/server/fleet/overview";
import { evaluateEnrollment } from "@/lib/server/lifecycle/enrollment";
import { tickRollouts } from "@/lib/server/rollouts/rollout-ticker";
import { expireRegistrationRequests } from "@/lib/server/registration-requests/expire-requests";
import { pruneLoginThrottles } from "@/lib/server/auth/login-throttle";
import { pruneExpiredSessions } from "@/lib/server/auth/sessions";
import { startJobs } from "@/lib/server/jobs/job-runner";
import { EXPORT_EVERY_MS, exportClusterProfiles } from "@/lib/server/cluster-profiles/export-cluster-profiles";
import { log } from "@/lib/server/log";
import { CLUSTER_API_EVERY_MS, runClusterApi, stopClusterApi } from "@/lib/server/cluster-api/controller";
import { DRAIN_SAMPLE_EVERY_MS, sampleDrains } from "@/lib/server/lifecycle/drain-samples";
import { startDueDrains } from "@/lib/server/lifecycle/drain-queue";
import {
  pruneAuditLog,
  pruneHeartbeatHistory,
  pruneRegistrationAttempts,
  pruneRegistrationRequests,
  pruneStatusEvents,
} from "@/lib/server/retention/prune-expired";
import { deliverDueWebhooks } from "@/lib/server/webhooks/deliver-webhooks";
import {
  notifyExpiringCertificates,
  notifyRegistrationFailures,
  pruneWebhookDeliveries,
} from "@/lib/server/webhooks/watch-fleet";

const PRUNE_MS = 10 * 60_000;
/** How long a shutdown waits for background jobs in flight (within server.ts's 9 s grace). */
const JOB_STOP_GRACE_MS = 3_000;
// 10,000 clusters add 10,000 heartbeat rows a minute: retention runs every minute, so a run deletes
// a few short batches and stays well inside its 2 s budget (docs/operations/retention.md).
const RETENTION_MS = 60_000;

/** Background work of one instance. Every job is safe to run on several instances at once. */
export function startJobSchedule(): () => Promise<void> {
  const jobs = startJobs([
    { name: "status-sweep", everyMs: 1000, run: () => sweepStatuses() },
    ratePublisherJob(),
    { name: "enrollment", everyMs: 10_000, run: evaluateEnrollment },
    { name: "rollout-tick", everyMs: 2000, run: tickRollouts },
    { name: "drain-samples", everyMs: DRAIN_SAMPLE_EVERY_MS, run: () => sampleDrains() },
    // A bulk drain's queued clusters start within a few seconds of their turn.
    { name: "queued-drains", everyMs: 5000, run: () => startDueDrains() },
    { name: "fleet-sample", everyMs: 15_000, run: sampleFleet, runAtStart: true },
    { name: "prune-heartbeat-history", everyMs: RETENTION_MS, run: () => pruneHeartbeatHistory() },
    { name: "prune-status-events", everyMs: RETENTION_MS, run: () => pruneStatusEvents() },
    { name: "prune-registration-attempts", everyMs: RETENTION_MS, run: () => pruneRegistrationAttempts() },
    {
      // Pending requests past their 7 days expire (their token uses come back), old ones go.
      name: "prune-registration-requests",
      everyMs: RETENTION_MS,
      run: async () => (await expireRegistrationRequests()) + (await pruneRegistrationRequests()),
    },
    { name: "prune-audit-log", everyMs: RETENTION_MS, run: () => pruneAuditLog() },
    { name: "prune-expired-sessions", everyMs: PRUNE_MS, run: pruneExpiredSessions },
    { name: "prune-sign-in-throttles", everyMs: PRUNE_MS, run: pruneLoginThrottles },
    { name: "cluster-profile-export", everyMs: EXPORT_EVERY_MS, run: () => exportClusterProfiles() },
    // Cluster API sources: leases, watchers, and the import's due steps (lib/server/cluster-api/controller.ts).
    { name: "cluster-api", everyMs: CLUSTER_API_EVERY_MS, run: () => runClusterApi(), runAtStart: true },
    // Webhooks: the outbox is polled each second, so an event goes out within about that.
    { name: "webhook-delivery", everyMs: 1000, run: () => deliverDueWebhooks(), runAtStart: true },
    {
      name: "webhook-watch",
      everyMs: 60_000,
      run: async () => {
        await notifyExpiringCertificates();
        await notifyRegistrationFailures();
      },
    },
    { name: "prune-webhook-deliveries", everyMs: RETENTION_MS, run: () => pruneWebhookDeliveries() },
  ]);
  return async () => {
    // The heartbeat facts are what a shutdown must not lose: they are written while the jobs in
    // flight finish, not after them. A job still running after JOB_STOP_GRACE_MS (one waiting for a
    // pooled connection under load, say) is left: its next run, here or on another instance, redoes it.
    const stopped = jobs
      .stop()
      .then(() => stopClusterApi())
      .then(() => true);
    const grace = new Promise<false>((resolve) => setTimeout(() => resolve(false), JOB_STOP_GRACE_MS).unref());
    const [, finished] = await Promise.all([flushHeartbeats(true), Promise.race([stopped, grace])]);
    if (!finished) log.warn("background jobs still running at shutdown; not waiting for them", { graceMs: JOB_STOP_GRACE_MS });
  };
}
