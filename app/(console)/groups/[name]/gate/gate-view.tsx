"use client";

import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useState, type FormEvent } from "react";
import { gateQueryFromSearch, useGate } from "@/lib/client/gate";
import { GateClusters, GateEnrollment, GateVerdict } from "@/components/groups/gate-parts";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { Field } from "@/components/ui/field";
import { InlineError } from "@/components/ui/inline-error";
import { Skeleton } from "@/components/ui/skeleton";
import { ErrorState } from "@/components/ui/states";

/**
 * One group's change gate: the verdict, the tolerance it was judged with (from the URL, the API's
 * own parameters), enrollment counts and the clusters that fail it or are ignored, each with why.
 * It reads GET /api/v1/gate with the same query a pipeline would send.
 */
export function GateView({ group }: { group: string }) {
  const search = useSearchParams();
  const q = gateQueryFromSearch(group, new URLSearchParams(search.toString()));
  const gate = useGate(q);
  const apiPath = `/api/v1/gate?${new URLSearchParams(q as Record<string, string>)}`;

  return (
    <div className="space-y-6">
      <div>
        <nav aria-label="Breadcrumb" className="mb-2 text-sm">
          <Link href="/groups" className="text-sky-700 hover:underline dark:text-sky-400">
            ← Groups
          </Link>
        </nav>
        <h1 className="text-xl font-semibold tracking-tight">Change gate: {group}</h1>
        <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">
          What a pipeline asking <code className="font-mono break-all">GET {apiPath}</code> is answered now.
        </p>
      </div>
      <ToleranceForm key={`${q.maxUnready ?? ""}|${q.ignoreNotReadyLongerThan ?? ""}`} q={q} />
      {gate.isPending ? (
        <div className="space-y-4" aria-busy="true" aria-label="Loading the gate">
          <Skeleton className="h-24" />
          <Skeleton className="h-40" />
        </div>
      ) : gate.isError && !gate.data ? (
        <ErrorState title="Could not evaluate the gate" message={gate.error.message} onRetry={() => void gate.refetch()} />
      ) : (
        <>
          {gate.isRefetchError && <InlineError error={gate.error} />}
          <GateVerdict result={gate.data} refreshing={gate.isFetching} onRefresh={() => void gate.refetch()} />
          <GateEnrollment result={gate.data} />
          <GateClusters result={gate.data} />
        </>
      )}
    </div>
  );
}

/** The tolerance as the API takes it; applying it changes the URL, so a view is a link. */
function ToleranceForm({ q }: { q: { maxUnready?: string; ignoreNotReadyLongerThan?: string } }) {
  const router = useRouter();
  const pathname = usePathname();
  const [maxUnready, setMaxUnready] = useState(q.maxUnready ?? "");
  const [ignore, setIgnore] = useState(q.ignoreNotReadyLongerThan ?? "");
  function submit(e: FormEvent) {
    e.preventDefault();
    const next = new URLSearchParams();
    if (maxUnready.trim()) next.set("maxUnready", maxUnready.trim());
    if (ignore.trim()) next.set("ignoreNotReadyLongerThan", ignore.trim());
    router.replace(next.size ? `${pathname}?${next}` : pathname, { scroll: false });
  }
  return (
    <Card title="Tolerance">
      <form onSubmit={submit} className="grid gap-4 sm:grid-cols-[1fr_1fr_auto] sm:items-end">
        <Field
          id="gate-max-unready"
          label="Unready clusters allowed"
          hint="A count (3) or a percentage (10%); empty: none."
          value={maxUnready}
          onChange={(e) => setMaxUnready(e.target.value)}
          autoComplete="off"
        />
        <Field
          id="gate-ignore"
          label="Ignore NotReady for longer than"
          hint="30m, 2h, 1d: listed apart, not judged; empty: none."
          value={ignore}
          onChange={(e) => setIgnore(e.target.value)}
          autoComplete="off"
        />
        <Button type="submit" variant="secondary" className="sm:mb-6">
          Apply
        </Button>
      </form>
    </Card>
  );
}
