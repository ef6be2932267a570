"use client";

import { useState } from "react";
import {
  useApproveRequest,
  useDecideRequests,
  useDenyRequest,
  useRegistrationRequests,
  type QueueTab,
  type RegistrationRequest,
} from "@/lib/client/registration-requests";
import { useTokens } from "@/lib/client/tokens";
import { selectorProblem } from "@/lib/domain/selector";
import { Button } from "@/components/ui/button";
import { inputClass } from "@/components/ui/field";
import { selectClass } from "@/components/ui/field-error";
import { useDebouncedValue } from "@/components/ui/use-debounced-value";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { InlineError } from "@/components/ui/inline-error";
import { ReasonDialog } from "@/components/ui/reason-dialog";
import { Skeleton } from "@/components/ui/skeleton";
import { EmptyState, ErrorState } from "@/components/ui/states";
import { RequestCard } from "./request-card";
import { RequestsTable } from "./requests-table";

/** Cards show every fact of a few requests; the table lines many up to compare and decide in bulk. */
type View = "cards" | "table";

type Dialog =
  | { kind: "none" }
  | { kind: "deny"; requests: RegistrationRequest[] }
  | { kind: "approve-many"; requests: RegistrationRequest[] };

/** What the last decision did, in words, for the status line above the queue. */
type Outcome = { tone: "ok" | "partial"; text: string; failures: string[] };

const TABS: { id: QueueTab; label: string }[] = [
  { id: "pending", label: "Waiting" },
  { id: "decided", label: "Decided" },
];

function names(requests: RegistrationRequest[]) {
  const shown = requests.slice(0, 5).map((r) => r.name);
  return requests.length > 5 ? `${shown.join(", ")} and ${requests.length - 5} more` : shown.join(", ");
}

// The queue refetches once typing pauses, not on every key.
const SEARCH_DEBOUNCE_MS = 300;

export function RequestsQueue({ canDecide }: { canDecide: boolean }) {
  const [tab, setTab] = useState<QueueTab>("pending");
  const [search, setSearch] = useState("");
  const [view, setView] = useState<View>("cards");
  const [tokenId, setTokenId] = useState("");
  const [selectorText, setSelectorText] = useState("");
  const q = useDebouncedValue(search.trim(), SEARCH_DEBOUNCE_MS);
  const typedSelector = useDebouncedValue(selectorText.trim(), SEARCH_DEBOUNCE_MS);
  // A selector that does not parse is said beside the field and not sent (the server would 400).
  const selectorError = typedSelector ? selectorProblem(typedSelector) : null;
  const selector = selectorError ? "" : typedSelector;
  const queue = useRegistrationRequests(tab, { q, tokenId, selector });
  const tokens = useTokens();
  const approve = useApproveRequest();
  const deny = useDenyRequest();
  const decide = useDecideRequests();
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [dialog, setDialog] = useState<Dialog>({ kind: "none" });
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [actionError, setActionError] = useState<unknown>(null);

  const items = queue.data?.items ?? [];
  const pendingItems = items.filter((r) => r.state === "pending");
  const chosen = pendingItems.filter((r) => selected.has(r.id));
  const busy = approve.isPending || deny.isPending || decide.isPending;

  function select(id: string, on: boolean) {
    setSelected((old) => {
      const next = new Set(old);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  }

  function approveOne(request: RegistrationRequest) {
    setActionError(null);
    approve.mutate(request.id, {
      onSuccess: () => {
        select(request.id, false);
        const others = request.pendingForName - 1;
        setOutcome({
          tone: "ok",
          text: `Approved ${request.name}: it registers on its agent's next try.${
            others > 0
              ? ` The other ${others === 1 ? "request" : `${others} requests`} for this name ${others === 1 ? "was" : "were"} denied.`
              : ""
          }`,
          failures: [],
        });
      },
      onError: (err) => setActionError(err),
    });
  }

  function closeDialog() {
    setDialog({ kind: "none" });
    deny.reset();
    decide.reset();
  }

  function denySelected(requests: RegistrationRequest[], reason: string) {
    if (requests.length === 1) {
      const [request] = requests as [RegistrationRequest];
      deny.mutate(
        { id: request.id, reason },
        {
          onSuccess: () => {
            select(request.id, false);
            setOutcome({ tone: "ok", text: `Denied ${request.name}; its agent is told why and stops asking.`, failures: [] });
            closeDialog();
          },
        },
      );
      return;
    }
    decideMany({ decision: "deny", ids: requests.map((r) => r.id), reason }, requests, "Denied");
  }

  function decideMany(
    decisions: { decision: "approve"; ids: string[] } | { decision: "deny"; ids: string[]; reason: string },
    requests: RegistrationRequest[],
    verb: string,
  ) {
    decide.mutate(decisions, {
      onSuccess: ({ results }) => {
        const byId = new Map(requests.map((r) => [r.id, r.name]));
        const done = results.filter((r) => r.ok);
        const failed = results.filter((r) => !r.ok);
        setSelected((old) => new Set([...old].filter((id) => failed.some((f) => f.id === id))));
        setOutcome({
          tone: failed.length ? "partial" : "ok",
          text: `${verb} ${done.length} of ${results.length} requests.`,
          failures: failed.map((f) => `${byId.get(f.id) ?? f.id}: ${f.error?.message ?? "not decided"}`),
        });
        closeDialog();
      },
    });
  }

  const allChosen = pendingItems.length > 0 && chosen.length === pendingItems.length;

  return (
    <div className="space-y-4">
      <div role="tablist" aria-label="Requests" className="flex gap-1 border-b border-slate-200 dark:border-slate-800">
        {TABS.map((t) => (
          <button
            key={t.id}
            role="tab"
            id={`tab-${t.id}`}
            aria-selected={tab === t.id}
            aria-controls="requests-panel"
            onClick={() => {
              setTab(t.id);
              setSelected(new Set());
            }}
            className={`-mb-px border-b-2 px-3 py-2 text-sm font-medium ${
              tab === t.id
                ? "border-sky-600 text-sky-800 dark:border-sky-400 dark:text-sky-200"
                : "border-transparent text-slate-600 hover:text-slate-900 dark:text-slate-400 dark:hover:text-slate-100"
            }`}
          >
            {t.label}
            {t.id === "pending" && queue.data && tab === "pending" ? ` (${queue.data.pending})` : ""}
          </button>
        ))}
      </div>

      <div id="requests-panel" role="tabpanel" aria-labelledby={`tab-${tab}`} className="space-y-4">
        <div className="flex flex-wrap items-end gap-3">
          <div className="w-full max-w-md space-y-1.5">
            <label htmlFor="requests-search" className="block text-sm font-medium">
              Search requests
            </label>
            <input
              id="requests-search"
              type="search"
              className={inputClass}
              value={search}
              onChange={(e) => setSearch(e.target.value)}
              placeholder="Name, key fingerprint, source address, token"
            />
          </div>
          <div className="space-y-1.5">
            <label htmlFor="requests-token" className="block text-sm font-medium">
              Token
            </label>
            <select
              id="requests-token"
              className={`${selectClass} w-56 max-w-full`}
              value={tokenId}
              onChange={(e) => {
                setTokenId(e.target.value);
                setSelected(new Set());
              }}
            >
              <option value="">Any token</option>
              {(tokens.data ?? [])
                .filter((t) => t.requireApproval || t.id === tokenId)
                .map((t) => (
                  <option key={t.id} value={t.id}>
                    {t.name}
                  </option>
                ))}
            </select>
          </div>
          <div className="w-64 max-w-full space-y-1.5">
            <label htmlFor="requests-selector" className="block text-sm font-medium">
              Labels
            </label>
            <input
              id="requests-selector"
              className={inputClass}
              value={selectorText}
              onChange={(e) => {
                setSelectorText(e.target.value);
                setSelected(new Set());
              }}
              placeholder="env=prod,region in (eu)"
              aria-invalid={selectorError ? true : undefined}
              aria-describedby={selectorError ? "requests-selector-error" : undefined}
            />
          </div>
          <div role="group" aria-label="View" className="ml-auto flex rounded-md border border-slate-300 dark:border-slate-700">
            {(["cards", "table"] as const).map((v) => (
              <button
                key={v}
                type="button"
                aria-pressed={view === v}
                onClick={() => setView(v)}
                className={`h-9 px-3 text-sm first:rounded-l-md last:rounded-r-md ${
                  view === v
                    ? "bg-slate-900 text-white dark:bg-slate-100 dark:text-slate-900"
                    : "text-slate-700 hover:bg-slate-100 dark:text-slate-300 dark:hover:bg-slate-800"
                }`}
              >
                {v === "cards" ? "Cards" : "Table"}
              </button>
            ))}
          </div>
        </div>
        {selectorError && (
          <p id="requests-selector-error" className="text-sm text-rose-700 dark:text-rose-400">
            The label selector is not valid: {selectorError}
          </p>
        )}
        {outcome && (
          <div
            role="status"
            className={`rounded-md px-3 py-2 text-sm ${
              outcome.tone === "ok"
                ? "bg-emerald-50 text-emerald-800 dark:bg-emerald-950/50 dark:text-emerald-200"
                : "bg-amber-50 text-amber-900 dark:bg-amber-950/50 dark:text-amber-200"
            }`}
          >
            <p>{outcome.text}</p>
            {outcome.failures.length > 0 && (
              <ul className="mt-1 list-disc pl-5 text-xs">
                {outcome.failures.map((f) => (
                  <li key={f}>{f}</li>
                ))}
              </ul>
            )}
          </div>
        )}
        {actionError ? <InlineError error={actionError} /> : null}

        {canDecide && tab === "pending" && pendingItems.length > 0 && (
          <div className="sticky top-0 z-10 flex flex-wrap items-center gap-3 rounded-lg border border-slate-200 bg-white/95 px-4 py-2.5 backdrop-blur dark:border-slate-800 dark:bg-slate-900/95">
            <label className="flex items-center gap-2 text-sm">
              <input
                type="checkbox"
                className="size-4 accent-sky-700"
                checked={allChosen}
                onChange={(e) => setSelected(e.target.checked ? new Set(pendingItems.map((r) => r.id)) : new Set())}
              />
              {chosen.length ? `${chosen.length} selected` : "Select all"}
            </label>
            <div className="ml-auto flex gap-2">
              <Button
                variant="secondary"
                className="text-rose-700 dark:text-rose-400"
                disabled={!chosen.length || busy}
                onClick={() => setDialog({ kind: "deny", requests: chosen })}
              >
                Deny selected
              </Button>
              <Button disabled={!chosen.length || busy} onClick={() => setDialog({ kind: "approve-many", requests: chosen })}>
                Approve selected
              </Button>
            </div>
          </div>
        )}

        {queue.isPending ? (
          <div className="space-y-4" aria-busy="true" aria-label="Loading registration requests">
            {[0, 1].map((i) => (
              <Skeleton key={i} className="h-56 w-full rounded-lg" />
            ))}
          </div>
        ) : queue.isError ? (
          <ErrorState
            title="Could not load registration requests"
            message={queue.error.message}
            onRetry={() => void queue.refetch()}
          />
        ) : items.length === 0 && (q || tokenId || selector) ? (
          <EmptyState title="No request matches">
            Nothing {tab === "pending" ? "waiting" : "decided"} matches {q ? `“${q}”` : "these filters"}
            {q && (tokenId || selector) ? " with these filters" : ""}.
          </EmptyState>
        ) : items.length === 0 ? (
          tab === "pending" ? (
            <EmptyState title="No cluster is waiting for approval">
              Registrations with a token minted with “Require approval” wait here until an operator approves or denies them. Their
              agents keep asking meanwhile; requests expire after 7 days.
            </EmptyState>
          ) : (
            <EmptyState title="No decided requests yet">
              Approved, denied and expired requests are kept here for the retention period.
            </EmptyState>
          )
        ) : (
          <div className="space-y-4">
            {view === "table" ? (
              <RequestsTable
                requests={items}
                selected={selected}
                onSelect={select}
                canDecide={canDecide}
                busy={busy}
                onApprove={approveOne}
                onDeny={(r) => setDialog({ kind: "deny", requests: [r] })}
              />
            ) : (
              items.map((r) => (
                <RequestCard
                  key={r.id}
                  request={r}
                  selected={selected.has(r.id)}
                  onSelect={(on) => select(r.id, on)}
                  canDecide={canDecide}
                  busy={busy}
                  onApprove={() => approveOne(r)}
                  onDeny={() => setDialog({ kind: "deny", requests: [r] })}
                  onCompare={() => setSearch(r.name)}
                />
              ))
            )}
            {queue.hasNextPage && (
              <div className="flex justify-center">
                <Button variant="secondary" disabled={queue.isFetchingNextPage} onClick={() => void queue.fetchNextPage()}>
                  {queue.isFetchingNextPage ? "Loading…" : "Show more"}
                </Button>
              </div>
            )}
          </div>
        )}
      </div>

      {dialog.kind === "deny" && (
        <ReasonDialog
          title={dialog.requests.length === 1 ? `Deny ${dialog.requests[0]!.name}?` : `Deny ${dialog.requests.length} requests?`}
          description={
            <>
              {names(dialog.requests)} will not join the fleet. The agent is told your reason and stops asking; the token gets its
              use back.
            </>
          }
          reasonLabel="Reason (the agent is told)"
          reasonRequired
          confirmLabel="Deny"
          pendingLabel="Denying…"
          variant="danger"
          pending={deny.isPending || decide.isPending}
          error={deny.error ?? decide.error}
          onConfirm={(reason) => denySelected(dialog.requests, reason ?? "")}
          onClose={closeDialog}
        />
      )}
      {dialog.kind === "approve-many" && (
        <ConfirmDialog
          title={`Approve ${dialog.requests.length} requests?`}
          description={<>{names(dialog.requests)} join the fleet; each registers on its agent’s next try.</>}
          confirmLabel={`Approve ${dialog.requests.length}`}
          pendingLabel="Approving…"
          variant="primary"
          pending={decide.isPending}
          error={decide.error}
          onConfirm={() =>
            decideMany({ decision: "approve", ids: dialog.requests.map((r) => r.id) }, dialog.requests, "Approved")
          }
          onClose={closeDialog}
        />
      )}
    </div>
  );
}
