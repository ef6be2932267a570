import type { ReactNode } from "react";
import type { ClusterDetail } from "@/lib/client/clusters";
import { Badge, type Tone } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { DefinitionList, Missing, Mono } from "./definition-list";
import { AsOfNote, LastKnown } from "./last-known";

const API_SERVER: Record<string, { tone: Tone; text: string }> = {
  ok: { tone: "green", text: "ok" },
  degraded: { tone: "amber", text: "degraded" },
  down: { tone: "red", text: "down" },
};

function flowing(value: boolean | null) {
  if (value === null) return <Missing>not yet read</Missing>;
  return value ? <Badge tone="green">flowing</Badge> : <Badge tone="red">not flowing</Badge>;
}

/** Versions, health as the agent reports it, and workload counts; greyed "as of" once they are stale. */
export function ClusterRuntimeCard({ cluster }: { cluster: ClusterDetail }) {
  const api = cluster.health.apiServer ? API_SERVER[cluster.health.apiServer] : undefined;
  return (
    <Card title="Health and versions" action={<AsOfNote asOf={cluster.factsAsOf} />}>
      <LastKnown asOf={cluster.factsAsOf}>
        <DefinitionList
          termWidth="7.5rem"
          items={[
            [
              "API server",
              api ? (
                <Badge tone={api.tone}>{api.text}</Badge>
              ) : cluster.health.apiServer ? (
                <span>{cluster.health.apiServer}</span>
              ) : (
                <Missing>not yet read</Missing>
              ),
            ],
            ["Logs", flowing(cluster.health.logs)],
            ["Metrics", flowing(cluster.health.metrics)],
            ["Kubernetes", cluster.kubernetesVersion ? <Mono>{cluster.kubernetesVersion}</Mono> : <Missing>unknown</Missing>],
            ["Agent", cluster.agentVersion ? <Mono>{cluster.agentVersion}</Mono> : <Missing />],
            [
              "Workloads",
              cluster.workloads ? (
                <span className="tabular-nums">
                  {cluster.workloads.pods.toLocaleString("en-US")} pods
                  {cluster.workloads.namespaces !== null &&
                    ` · ${cluster.workloads.namespaces.toLocaleString("en-US")} namespaces`}
                  {cluster.workloads.userPods != null && ` · ${cluster.workloads.userPods.toLocaleString("en-US")} user pods`}
                </span>
              ) : (
                <Missing>not yet read</Missing>
              ),
            ],
            [
              "Policy revision",
              cluster.appliedPolicyRevision ? <Mono>{cluster.appliedPolicyRevision}</Mono> : <Missing>none applied</Missing>,
            ],
            ...cluster.failedDirectives.map((d): [ReactNode, ReactNode] => [
              "Failed directive",
              <span key={d.id} data-testid="failed-directive">
                <Badge tone="red">{d.type}</Badge> {d.reason}
              </span>,
            ]),
          ]}
        />
      </LastKnown>
    </Card>
  );
}
