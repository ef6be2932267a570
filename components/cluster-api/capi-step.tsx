"use client";

import type { CapiClusterView } from "@/lib/contracts/cluster-api";
import { SHOWN_CONDITIONS, type CapiStep } from "@/lib/domain/cluster-api";
import { Badge, toneClass, type Tone } from "@/components/ui/badge";
import { RelativeTime, useNow } from "@/components/ui/relative-time";

// How a CAPI Cluster's import reads in the console: its step as a badge, its conditions as chips,
// and its last failure. Shared by the Cluster API page and the cluster page's card.

/** Each step in a word or two, and its colour: green once joined, red where a person must act. */
export const CAPI_STEP_LOOK: Record<CapiStep, { label: string; tone: Tone }> = {
  "not-opted-in": { label: "not opted in", tone: "neutral" },
  excluded: { label: "excluded", tone: "amber" },
  "labels-refused": { label: "labels refused", tone: "red" },
  provisioning: { label: "provisioning", tone: "blue" },
  joining: { label: "joining", tone: "violet" },
  applied: { label: "agent applied", tone: "violet" },
  joined: { label: "joined", tone: "green" },
  deleting: { label: "deleting", tone: "amber" },
};

export function CapiStepBadge({ step }: { step: CapiStep }) {
  const look = CAPI_STEP_LOOK[step];
  return <Badge tone={look.tone}>{look.label}</Badge>;
}

const CONDITION_LOOK = {
  True: { tone: "green", mark: "✓" },
  False: { tone: "red", mark: "✗" },
  Unknown: { tone: "neutral", mark: "?" },
} as const satisfies Record<string, { tone: Tone; mark: string }>;

/** InfrastructureReady, ControlPlaneInitialized and ControlPlaneReady, each True, False or not known yet. */
export function CapiConditions({ conditions }: { conditions: CapiClusterView["conditions"] }) {
  return (
    <ul className="flex flex-wrap gap-1" aria-label="Conditions">
      {SHOWN_CONDITIONS.map((type) => {
        const c = conditions.find((x) => x.type === type);
        const status = c?.status ?? "Unknown";
        const look = CONDITION_LOOK[status];
        const why = [c?.reason, c?.message].filter(Boolean).join(": ");
        return (
          <li key={type}>
            <span
              title={why || (c ? undefined : "not reported yet")}
              data-condition={type}
              data-status={status}
              className={`inline-flex items-center gap-1 rounded px-1.5 py-0.5 text-xs font-medium ring-1 ring-inset ${toneClass(look.tone)}`}
            >
              <span aria-hidden>{look.mark}</span>
              {type}
              <span className="sr-only">: {c ? status : "not reported yet"}</span>
            </span>
          </li>
        );
      })}
    </ul>
  );
}

/** The step's last failure in red: what, when, and when it is tried again. */
export function CapiStepError({ cluster }: { cluster: Pick<CapiClusterView, "error" | "attempts" | "nextAttemptAt"> }) {
  if (!cluster.error) return null;
  return (
    <div
      data-testid="capi-cluster-error"
      className="mt-1.5 rounded-md bg-rose-50 px-2 py-1.5 text-xs text-rose-700 dark:bg-rose-950/50 dark:text-rose-300"
    >
      <p className="font-medium break-words">{cluster.error.message}</p>
      <p className="mt-0.5">
        Failed <RelativeTime iso={cluster.error.at} />
        {cluster.attempts > 1 && <> · {cluster.attempts} attempts</>}
        {cluster.nextAttemptAt && <NextTry iso={cluster.nextAttemptAt} />}
      </p>
    </div>
  );
}

/** "next try in 40 s", or "retrying now" once that time has come (the importer takes it on its next run). */
function NextTry({ iso }: { iso: string }) {
  const now = useNow();
  if (Date.parse(iso) <= now) return <> · retrying now</>;
  return (
    <>
      {" "}
      · next try <RelativeTime iso={iso} />
    </>
  );
}
