"use client";

import type { ReactNode } from "react";
import { useUpdateCapiSource, type CapiSourceView } from "@/lib/client/cluster-api";
import { CAPI_STEPS, OPT_IN_VALUE, type CapiStep } from "@/lib/domain/cluster-api";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { InlineError } from "@/components/ui/inline-error";
import { LabelChip, LabelChips } from "@/components/ui/label-chips";
import { RelativeTime } from "@/components/ui/relative-time";
import { CAPI_STEP_LOOK } from "./capi-step";

const muted = "text-slate-600 dark:text-slate-400";

function Row({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div className="contents">
      <dt className={muted}>{term}</dt>
      <dd className="min-w-0">{children}</dd>
    </div>
  );
}

/** Whether the watch runs, in a badge: watching, paused by an admin, or waiting for an instance to take it. */
function WatchBadge({ source }: { source: CapiSourceView }) {
  if (!source.enabled) return <Badge tone="neutral">paused</Badge>;
  if (source.watching) return <Badge tone="green">watching</Badge>;
  return (
    <Badge tone="amber" title="No server instance holds its watch yet: one takes it within seconds of starting.">
      not watching
    </Badge>
  );
}

/**
 * One management cluster: where it is, what it watches and how its clusters are labelled, whether
 * the watch runs and how it last went (an error first and in red), and its CAPI Clusters by step
 * (each count filters the table below). Admins edit, pause or delete it.
 */
export function CapiSourceCard({
  source,
  canEdit,
  onEdit,
  onDelete,
  onShowStep,
}: {
  source: CapiSourceView;
  canEdit: boolean;
  onEdit: () => void;
  onDelete: () => void;
  onShowStep: (step: CapiStep) => void;
}) {
  const update = useUpdateCapiSource();
  const counted = CAPI_STEPS.filter((s) => source.steps[s] > 0);
  const agent = source.agentOptions;
  return (
    <section
      aria-labelledby={`capi-source-${source.id}`}
      data-capi-source={source.name}
      className="min-w-0 rounded-lg border border-slate-200 bg-white shadow-sm dark:border-slate-800 dark:bg-slate-900"
    >
      <header className="flex flex-wrap items-center justify-between gap-2 border-b border-slate-200 px-5 py-3 dark:border-slate-800">
        <div className="flex min-w-0 flex-wrap items-center gap-2">
          <h2 id={`capi-source-${source.id}`} className="font-mono text-sm font-semibold break-all">
            {source.name}
          </h2>
          <WatchBadge source={source} />
          {source.servedVersion && <Badge tone="blue">cluster.x-k8s.io/{source.servedVersion}</Badge>}
        </div>
        {canEdit && (
          <div className="flex flex-wrap gap-1">
            <Button variant="ghost" className="h-8" onClick={onEdit}>
              Edit<span className="sr-only"> {source.name}</span>
            </Button>
            <Button
              variant="ghost"
              className="h-8"
              disabled={update.isPending}
              onClick={() => update.mutate({ id: source.id, patch: { enabled: !source.enabled } })}
            >
              {source.enabled ? "Pause" : "Resume"}
              <span className="sr-only"> watching {source.name}</span>
            </Button>
            <Button variant="ghost" className="h-8 text-rose-700 dark:text-rose-400" onClick={onDelete}>
              Delete<span className="sr-only"> {source.name}</span>
            </Button>
          </div>
        )}
      </header>
      <div className="space-y-4 p-5">
        {update.error && <InlineError error={update.error} />}
        {source.lastError && (
          <div
            role="alert"
            data-testid="capi-source-error"
            className="rounded-md border border-rose-300 bg-rose-50 px-3 py-2 text-sm text-rose-700 dark:border-rose-900 dark:bg-rose-950/50 dark:text-rose-300"
          >
            <p className="font-medium">
              The watch is failing (since <RelativeTime iso={source.lastError.at} />)
            </p>
            <p className="mt-1 break-words">{source.lastError.message}</p>
          </div>
        )}
        <dl className="grid grid-cols-1 gap-x-6 gap-y-2 text-sm sm:grid-cols-[10rem_minmax(0,1fr)]">
          <Row term="Server">
            <span className="font-mono text-xs break-all">{source.server}</span>
          </Row>
          <Row term="Namespaces">
            {source.namespaces.length ? (
              <span className="font-mono text-xs break-all">{source.namespaces.join(", ")}</span>
            ) : (
              "all namespaces"
            )}
          </Row>
          <Row term="Opt-in label">
            <LabelChip k={source.optInLabel} v={OPT_IN_VALUE} />{" "}
            <span className={`text-xs ${muted}`}>on a Cluster or its Namespace</span>
          </Row>
          <Row term="Label mappings">
            {source.labelMappings.length ? (
              <ul className="flex flex-wrap gap-1" aria-label="Label mappings">
                {source.labelMappings.map((m) => (
                  <li key={`${m.from}>${m.to}`}>
                    <LabelChip>
                      {m.from} → {m.to}
                    </LabelChip>
                  </li>
                ))}
              </ul>
            ) : (
              <span className={muted}>none</span>
            )}
          </Row>
          <Row term="Fixed labels">
            <LabelChips labels={source.fixedLabels} empty="none" />
          </Row>
          <Row term="Approval">{source.requireApproval ? "its clusters' registrations wait for approval" : "not required"}</Row>
          <Row term="Private addresses">{source.allowPrivateTargets ? "allowed" : "refused"}</Row>
          {(agent.agentImage || agent.httpsProxy || agent.noProxy) && (
            <Row term="Agent manifest">
              <span className="font-mono text-xs break-all">
                {[
                  agent.agentImage && `image ${agent.agentImage}`,
                  agent.httpsProxy && `HTTPS_PROXY ${agent.httpsProxy}`,
                  agent.noProxy && `NO_PROXY ${agent.noProxy}`,
                ]
                  .filter(Boolean)
                  .join(" · ")}
              </span>
            </Row>
          )}
          <Row term="CAPI version read">{source.servedVersion ?? <span className={muted}>not discovered yet</span>}</Row>
          <Row term="Last full list">
            <RelativeTime iso={source.lastSyncAt} fallback="none yet" />
          </Row>
          <Row term="Added">
            <RelativeTime iso={source.createdAt} /> by {source.createdBy}
          </Row>
        </dl>
        <div>
          <h3 className="text-xs font-medium tracking-wide text-slate-500 uppercase dark:text-slate-400">
            CAPI Clusters by step
          </h3>
          {counted.length === 0 ? (
            <p className={`mt-1 text-sm ${muted}`}>None seen yet.</p>
          ) : (
            <ul className="mt-1.5 flex flex-wrap gap-1.5" aria-label={`CAPI Clusters of ${source.name} by step`}>
              {counted.map((step) => (
                <li key={step}>
                  <button
                    type="button"
                    onClick={() => onShowStep(step)}
                    data-step={step}
                    aria-label={`${source.steps[step].toLocaleString("en")} ${CAPI_STEP_LOOK[step].label}: show them`}
                    className="rounded-full focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-600"
                  >
                    <Badge tone={CAPI_STEP_LOOK[step].tone}>
                      <span className="tabular-nums">{source.steps[step].toLocaleString("en")}</span> {CAPI_STEP_LOOK[step].label}
                    </Badge>
                  </button>
                </li>
              ))}
            </ul>
          )}
        </div>
      </div>
    </section>
  );
}
