"use client";

import { useState } from "react";
import { useVersions, type VersionsOverview } from "@/lib/client/versions";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { PageHeader } from "@/components/ui/page-header";
import { EmptyState, ErrorState } from "@/components/ui/states";
import { AgentImageWarning } from "@/components/tokens/agent-image-warning";
import { CompatibilityMatrixTable } from "@/components/versions/compatibility-matrix-table";
import { DistributionBarChart } from "@/components/ui/charts/distribution-bar-chart";
import { FlaggedClustersTable } from "@/components/versions/flagged-clusters-table";
import { ResetMatrixDialog } from "@/components/versions/matrix-editor-dialog";
import { MatrixTableEditor } from "@/components/versions/matrix-table-editor";
import { StatCard } from "@/components/ui/stat-card";
import { VersionsSkeleton } from "@/components/versions/versions-skeleton";
import { agentStanding, byVersion, kubernetesByMinor, FLAG_INFO } from "@/components/versions/version-math";
import { satisfies } from "@/lib/domain/semver";

const DESCRIPTION = "Which agent and Kubernetes versions the fleet runs, and which clusters need an upgrade.";

// Mid-tones readable on both themes (SVG fills cannot follow the dark: variant).
const STANDING_COLOR = { current: "#10b981", outdated: "#f59e0b", incompatible: "#f43f5e" } as const;
const K8S_COLOR = "#0ea5e9";
const K8S_UNSUPPORTED_COLOR = "#a855f7";

function Distribution({ data }: { data: VersionsOverview }) {
  const agentBars = [...data.agentVersions]
    .sort((a, b) => byVersion(a.version, b.version))
    .map((a) => {
      const standing = agentStanding(data.matrix, a.version);
      return { name: a.version, value: a.count, color: STANDING_COLOR[standing], note: standing };
    });
  const kubeBars = kubernetesByMinor(data.kubernetesVersions).map((k) => {
    const supported = data.matrix.agents.some((r) => satisfies(`${k.minor}.0`, r.kubernetes));
    return {
      name: k.minor,
      value: k.count,
      color: supported ? K8S_COLOR : K8S_UNSUPPORTED_COLOR,
      note: k.patches.join(", "),
    };
  });
  return (
    <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
      <Card title="Agent versions">
        <DistributionBarChart
          label="Clusters per agent version"
          unit="clusters"
          bars={agentBars}
          legend={[
            { color: STANDING_COLOR.current, label: `Recommended or newer (≥ ${data.matrix.recommendedAgentVersion})` },
            { color: STANDING_COLOR.outdated, label: "Outdated" },
            { color: STANDING_COLOR.incompatible, label: "Incompatible" },
          ]}
        />
      </Card>
      <Card title="Kubernetes versions">
        <DistributionBarChart
          label="Clusters per Kubernetes minor version"
          unit="clusters"
          bars={kubeBars}
          legend={[
            { color: K8S_COLOR, label: "Supported by some agent version" },
            { color: K8S_UNSUPPORTED_COLOR, label: "Supported by no agent version" },
          ]}
        />
      </Card>
    </div>
  );
}

export function VersionsView({ canEdit, canRollout }: { canEdit: boolean; canRollout: boolean }) {
  const versions = useVersions();
  const [dialog, setDialog] = useState<"edit" | "reset" | null>(null);
  const data = versions.data;
  const reporting = data?.agentVersions.reduce((s, a) => s + a.count, 0) ?? 0;

  const actions =
    canEdit && data ? (
      <div className="flex gap-2">
        {data.edited && (
          <Button variant="secondary" onClick={() => setDialog("reset")}>
            Reset to shipped
          </Button>
        )}
        <Button onClick={() => setDialog("edit")}>Edit matrix</Button>
      </div>
    ) : null;

  return (
    <>
      <PageHeader title="Versions" description={DESCRIPTION} actions={actions} />
      <div className="mb-6 empty:hidden">
        <AgentImageWarning />
      </div>
      {versions.isPending ? (
        <VersionsSkeleton />
      ) : versions.isError ? (
        <ErrorState title="Could not load versions" message={versions.error.message} onRetry={() => void versions.refetch()} />
      ) : (
        <div className="space-y-6">
          <div className="grid grid-cols-2 gap-4 lg:grid-cols-4">
            <StatCard label="Clusters reporting versions" value={reporting.toLocaleString("en-US")} testId="versions-reporting" />
            {(["incompatible", "outdated", "unsupported-kubernetes"] as const).map((flag) => {
              const n = versions.data.flaggedCounts[flag];
              return (
                <StatCard
                  key={flag}
                  label={FLAG_INFO[flag].label}
                  value={n.toLocaleString("en-US")}
                  tone={n === 0 ? "green" : flag === "incompatible" ? "red" : "amber"}
                  hint={FLAG_INFO[flag].hint}
                  testId={`flag-${flag}`}
                />
              );
            })}
          </div>

          <Card
            title="Compatibility matrix"
            action={
              versions.data.edited ? (
                <Badge tone="violet" title="An admin replaced the matrix shipped with this build">
                  Edited by an admin
                </Badge>
              ) : (
                <Badge>Shipped with this build</Badge>
              )
            }
          >
            <CompatibilityMatrixTable
              matrix={versions.data.matrix}
              agentVersions={versions.data.agentVersions}
              kubernetesVersions={versions.data.kubernetesVersions}
            />
          </Card>

          {reporting === 0 ? (
            <EmptyState title="No cluster has reported its versions yet">
              Version distribution appears here once agents register and heartbeat.
            </EmptyState>
          ) : (
            <Distribution data={versions.data} />
          )}

          <Card title="Flagged clusters">
            <FlaggedClustersTable
              counts={versions.data.flaggedCounts}
              total={versions.data.flaggedTotal}
              canRollout={canRollout}
            />
          </Card>
        </div>
      )}
      {dialog === "edit" && data && <MatrixTableEditor matrix={data.matrix} onClose={() => setDialog(null)} />}
      {dialog === "reset" && <ResetMatrixDialog onClose={() => setDialog(null)} />}
    </>
  );
}
