"use client";

import Link from "next/link";
import type { RegistrationRequest } from "@/lib/client/registration-requests";
import { Badge, type Tone } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { LabelChips } from "@/components/ui/label-chips";
import { RelativeTime } from "@/components/ui/relative-time";
import { CopyValue } from "@/components/clusters/copy-value";
import { DefinitionList, Missing, Mono } from "@/components/clusters/definition-list";
import { GroupLinks, VersionFlags } from "./request-facts";

const STATE_TONES: Record<RegistrationRequest["state"], Tone> = {
  pending: "amber",
  approved: "blue",
  completed: "green",
  denied: "red",
  expired: "neutral",
};

const STATE_LABELS: Record<RegistrationRequest["state"], string> = {
  pending: "Waiting for approval",
  approved: "Approved, agent collecting",
  completed: "Registered",
  denied: "Denied",
  expired: "Expired",
};

/**
 * One registration request with every fact an operator weighs before letting a cluster in: who
 * asked (source, token), what it claims to be (API server, CA, versions, UID) and what it will carry.
 */
export function RequestCard({
  request,
  selected,
  onSelect,
  canDecide,
  busy,
  onApprove,
  onDeny,
  onCompare,
}: {
  request: RegistrationRequest;
  selected: boolean;
  onSelect: (selected: boolean) => void;
  canDecide: boolean;
  busy: boolean;
  onApprove: () => void;
  onDeny: () => void;
  /** Shows every request for this name together (a search for it). */
  onCompare: () => void;
}) {
  const pending = request.state === "pending";
  const headingId = `request-${request.id}`;
  return (
    <article
      aria-labelledby={headingId}
      data-request-id={request.id}
      className={`rounded-lg border bg-white p-4 sm:p-5 dark:bg-slate-900 ${
        selected
          ? "border-sky-400 ring-1 ring-sky-400 dark:border-sky-600 dark:ring-sky-600"
          : "border-slate-200 dark:border-slate-800"
      }`}
    >
      <div className="flex flex-wrap items-start gap-3">
        {pending && canDecide && (
          <input
            type="checkbox"
            className="mt-1 size-4 shrink-0 accent-sky-700"
            checked={selected}
            onChange={(e) => onSelect(e.target.checked)}
            aria-label={`Select ${request.name}`}
          />
        )}
        <div className="min-w-0 flex-1">
          <h2 id={headingId} className="font-mono text-base font-semibold break-all">
            {request.name}
          </h2>
          <p className="mt-0.5 text-xs text-slate-500 dark:text-slate-400">
            first asked <RelativeTime iso={request.firstSeenAt} /> · last asked <RelativeTime iso={request.lastSeenAt} />
            {pending && (
              <>
                {" "}
                · expires <RelativeTime iso={request.expiresAt} />
              </>
            )}
          </p>
        </div>
        <Badge tone={STATE_TONES[request.state]}>{STATE_LABELS[request.state]}</Badge>
      </div>

      {pending && request.pendingForName > 1 && (
        <p
          role="note"
          className="mt-3 rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950/50 dark:text-amber-200"
        >
          <span className="font-semibold">{request.pendingForName} requests for this name</span>, each from another key. Approve
          the one whose key fingerprint the agent you installed printed; approving it denies the others.{" "}
          <button type="button" className="font-medium underline" onClick={onCompare}>
            Show them together
          </button>
        </p>
      )}

      {request.sameClusterAs.length > 0 && (
        <p
          role="note"
          className="mt-3 rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950/50 dark:text-amber-200"
        >
          <span className="font-semibold">Same cluster as </span>
          {request.sameClusterAs.map((c, i) => (
            <span key={c.id}>
              {i > 0 && ", "}
              <Link href={`/clusters/${c.id}`} className="font-mono underline">
                {c.name}
              </Link>
            </span>
          ))}
          : it reports the same kube-system UID. Approving registers one Kubernetes cluster twice (a manifest applied under a
          second name, a restored backup, a clone).
        </p>
      )}

      <div className="mt-4">
        <DefinitionList
          termWidth="8.5rem"
          items={[
            ["Labels", <LabelChips key="l" labels={request.labels} />],
            [
              "Key fingerprint",
              <CopyValue key="k" value={request.keyFingerprint} what={`the key fingerprint of ${request.name}'s request`} />,
            ],
            ["Token", <span key="t">{request.token.name}</span>],
            [
              "Source address",
              request.sourceAddress ? <Mono key="s">{request.sourceAddress}</Mono> : <Missing key="s">unknown</Missing>,
            ],
            ["API server", <Mono key="a">{request.apiServerUrl}</Mono>],
            ["CA fingerprint", <CopyValue key="c" value={request.caFingerprint} what={`${request.name}'s CA fingerprint`} />],
            [
              "Versions",
              <span key="v">
                agent {request.agentVersion} · Kubernetes {request.kubernetesVersion ?? <Missing>unknown</Missing>}
                <VersionFlags flags={request.versionFlags} className="mt-1" />
              </span>,
            ],
            ["Joins groups", <GroupLinks key="g" groups={request.joinsGroups} />],
            [
              "Cluster UID",
              request.clusterUid ? <Mono key="u">{request.clusterUid}</Mono> : <Missing key="u">not reported</Missing>,
            ],
            ...(request.decidedAt
              ? ([
                  [
                    request.state === "denied" ? "Denied" : "Approved",
                    <span key="d">
                      <RelativeTime iso={request.decidedAt} /> by {request.decidedBy ?? "unknown"}
                      {request.reason && <span className="block text-slate-600 dark:text-slate-400">“{request.reason}”</span>}
                    </span>,
                  ],
                ] as [string, React.ReactNode][])
              : []),
            ...(request.clusterId
              ? ([
                  [
                    "Cluster",
                    <Link key="k" href={`/clusters/${request.clusterId}`} className="text-sky-700 underline dark:text-sky-400">
                      Open {request.name}
                    </Link>,
                  ],
                ] as [string, React.ReactNode][])
              : []),
          ]}
        />
      </div>

      {pending && canDecide && (
        <div className="mt-4 flex flex-wrap justify-end gap-2 border-t border-slate-100 pt-4 dark:border-slate-800">
          <Button variant="secondary" className="text-rose-700 dark:text-rose-400" disabled={busy} onClick={onDeny}>
            Deny<span className="sr-only"> {request.name}</span>
          </Button>
          <Button disabled={busy} onClick={onApprove}>
            Approve<span className="sr-only"> {request.name}</span>
          </Button>
        </div>
      )}
    </article>
  );
}
