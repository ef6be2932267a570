"use client";

import type { ReactNode } from "react";
import { useClusterCapiOrigin } from "@/lib/client/cluster-api";
import { Card } from "@/components/ui/card";
import { DefinitionList, Missing, Mono } from "@/components/clusters/definition-list";
import { RelativeTime } from "@/components/ui/relative-time";
import { CapiConditions, CapiStepBadge, CapiStepError } from "./capi-step";

/**
 * Where an imported cluster comes from: its Cluster API source and Cluster, the import's step and
 * what it waits for, and the Cluster's own state. Nothing at all for a cluster that was not
 * imported (nor while that is being asked, nor when the question fails: the rest of the page stands).
 */
export function CapiOriginCard({ clusterId }: { clusterId: string }) {
  const origin = useClusterCapiOrigin(clusterId);
  const c = origin.data;
  if (!c) return null;
  return (
    <Card title="Cluster API">
      <div data-testid="capi-origin" className="space-y-3">
        <DefinitionList
          termWidth="7.5rem"
          items={[
            ["Source", <Mono key="source">{c.source.name}</Mono>],
            ["CAPI Cluster", <Mono key="name">{`${c.namespace}/${c.name}`}</Mono>],
            [
              "Step",
              <div key="step">
                <CapiStepBadge step={c.step} />
                <p className="mt-1 text-xs text-slate-600 dark:text-slate-400">{c.waitingFor}</p>
              </div>,
            ],
            ["Conditions", <CapiConditions key="conditions" conditions={c.conditions} />],
            ["Phase", c.capiPhase ?? <Missing>no phase yet</Missing>],
            ["Provider", c.infrastructureProvider ?? <Missing />],
            ["Kubernetes", c.kubernetesVersion ? <Mono key="version">{c.kubernetesVersion}</Mono> : <Missing />],
            ["Class", c.topologyClass ?? <Missing>no topology class</Missing>],
            ["Created", <RelativeTime key="created" iso={c.capiCreatedAt} fallback="unknown" />],
            ...(c.deletingSince
              ? [["Deleting since", <RelativeTime key="deleting" iso={c.deletingSince} />] as [string, ReactNode]]
              : []),
          ]}
        />
        <CapiStepError cluster={c} />
      </div>
    </Card>
  );
}
