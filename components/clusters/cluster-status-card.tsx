import type { ClusterDetail } from "@/lib/client/clusters";
import { StatusBadge } from "@/components/ui/status-badge";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { RelativeTime } from "@/components/ui/relative-time";
import { DefinitionList } from "./definition-list";
import { ThresholdNote } from "./threshold-note";

/** Status now, and the facts it was computed from. */
export function ClusterStatusCard({ cluster }: { cluster: ClusterDetail }) {
  const since = cluster.events.find((e) => e.kind === "status" && e.to === cluster.status)?.at ?? null;
  return (
    <Card title="Status">
      <div className="mb-4 flex items-center gap-3">
        <span className="scale-125 origin-left">
          <StatusBadge status={cluster.status} />
        </span>
        {since && (
          <span className="ml-4 text-xs text-slate-500 dark:text-slate-400">
            since <RelativeTime iso={since} />
          </span>
        )}
      </div>
      <DefinitionList
        termWidth="7.5rem"
        items={[
          [
            "Last heartbeat",
            <span key="hb" data-testid="last-seen">
              <RelativeTime iso={cluster.lastHeartbeatAt} fallback="no heartbeat yet" />
            </span>,
          ],
          ["Rule", <ThresholdNote key="rule" seconds={cluster.notReadyThresholdSeconds} />],
          [
            "Phase",
            <span key="phase">
              {cluster.phase}{" "}
              <span className="text-slate-500 dark:text-slate-400">
                (<RelativeTime iso={cluster.phaseChangedAt} />)
              </span>
            </span>,
          ],
          [
            "Enrollment",
            cluster.enrollment.complete ? (
              <Badge key="e" tone="green">
                Enrolled
              </Badge>
            ) : (
              <Badge key="e" tone="amber">
                Not enrolled
              </Badge>
            ),
          ],
        ]}
      />
    </Card>
  );
}
