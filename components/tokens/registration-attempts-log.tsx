"use client";

import { useMemo, useState } from "react";
import {
  DEFERRED_RESULT,
  PENDING_APPROVAL,
  explainRegistrationResult,
  PROBLEM_KIND_LABEL,
  PROBLEM_KINDS,
  REGISTRATION_ERROR_CODES,
} from "@/lib/domain/registration-errors";
import {
  useRegistrationAttempts,
  type AttemptFilters,
  type RegistrationAttempt,
  type RegistrationToken,
} from "@/lib/client/tokens";
import { Button } from "@/components/ui/button";
import { RelativeTime, useNow } from "@/components/ui/relative-time";
import { formatAgo } from "@/lib/domain/time-format";
import { TableSkeleton } from "@/components/ui/skeleton";
import { EmptyState, ErrorState } from "@/components/ui/states";
import { AttemptResultBadge } from "./attempt-result-badge";
import { selectClass } from "@/components/ui/field-error";
import { TableHead } from "@/components/ui/table-head";
import { ScrollRegion } from "@/components/ui/scroll-region";
import { RefusalSummaryCard } from "./refusal-summary";

/**
 * Every registration attempt, newest first, with what a refusal means and what to do about it.
 * `tokens` names the token of each row; unknown ids (a deleted or mistyped token) show as ids.
 */
export function RegistrationAttemptsLog({ tokens }: { tokens: RegistrationToken[] | undefined }) {
  const [filters, setFilters] = useState<Omit<AttemptFilters, "cursor">>({});
  // Cursors of the pages before the current one, for "Newer".
  const [cursors, setCursors] = useState<string[]>([]);
  const query = useRegistrationAttempts({ ...filters, cursor: cursors[cursors.length - 1] });
  const tokenNames = useMemo(() => new Map((tokens ?? []).map((t) => [t.id, t.name])), [tokens]);

  const setFilter = (key: keyof typeof filters, value: string) => {
    setFilters((f) => ({ ...f, [key]: value || undefined }));
    setCursors([]);
  };
  const filtered = Object.values(filters).some(Boolean);

  return (
    <div className="space-y-4">
      <RefusalSummaryCard />
      <div className="flex flex-wrap items-end justify-between gap-4">
        <form
          role="search"
          aria-label="Filter registration attempts"
          className="flex max-w-full flex-wrap items-end gap-3"
          onSubmit={(e) => e.preventDefault()}
        >
          <div className="space-y-1.5 text-sm font-medium">
            <label htmlFor="attempts-result" className="block">
              Result
            </label>
            <select
              id="attempts-result"
              className={`${selectClass} w-64 max-w-full`}
              value={filters.result ?? ""}
              onChange={(e) => setFilter("result", e.target.value)}
            >
              <option value="">All results</option>
              <option value="ok">Registered (ok)</option>
              <option value={PENDING_APPROVAL}>Waiting for approval ({PENDING_APPROVAL})</option>
              <option value={DEFERRED_RESULT}>Deferred ({DEFERRED_RESULT})</option>
              {PROBLEM_KINDS.map((kind) => (
                <optgroup key={kind} label={PROBLEM_KIND_LABEL[kind]}>
                  {REGISTRATION_ERROR_CODES.filter(
                    (c) => c !== DEFERRED_RESULT && explainRegistrationResult(c).kind === kind,
                  ).map((code) => (
                    <option key={code} value={code}>
                      {explainRegistrationResult(code).title} ({code})
                    </option>
                  ))}
                </optgroup>
              ))}
            </select>
          </div>
          <div className="space-y-1.5 text-sm font-medium">
            <label htmlFor="attempts-token" className="block">
              Token
            </label>
            <select
              id="attempts-token"
              className={`${selectClass} w-56`}
              value={filters.tokenId ?? ""}
              onChange={(e) => setFilter("tokenId", e.target.value)}
            >
              <option value="">All tokens</option>
              {(tokens ?? []).map((t) => (
                <option key={t.id} value={t.id}>
                  {t.name}
                </option>
              ))}
            </select>
          </div>
        </form>
        <RefreshNote updatedAt={query.dataUpdatedAt} fetching={query.isFetching} />
      </div>

      {query.isPending ? (
        <TableSkeleton rows={6} label="Loading registration attempts" />
      ) : query.isError ? (
        <ErrorState
          title="Could not load registration attempts"
          message={query.error.message}
          onRetry={() => void query.refetch()}
        />
      ) : query.data.items.length === 0 ? (
        <EmptyState title={filtered ? "No attempts match these filters" : "No registration attempts yet"}>
          {filtered
            ? "Try another result or token."
            : "Each time an agent presents a token — accepted or refused — it is logged here with what went wrong and what to do."}
        </EmptyState>
      ) : (
        <ScrollRegion
          label="Registration attempts table"
          className="relative rounded-lg border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900"
        >
          <table className="w-full text-left text-sm">
            <caption className="sr-only">Registration attempts, newest first; a refusal is followed by what it means</caption>
            <TableHead columns={["Time", "Result", "Cluster", "Token", "Source address"]} />
            {query.data.items.map((a) => (
              <AttemptRows key={a.id} attempt={a} tokenName={a.tokenId ? tokenNames.get(a.tokenId) : undefined} />
            ))}
          </table>
        </ScrollRegion>
      )}

      {/* No pager under "nothing yet": there is nothing to page through. */}
      <div
        className={`flex items-center justify-end gap-2 ${query.data?.items.length === 0 && cursors.length === 0 ? "hidden" : ""}`}
      >
        <Button variant="secondary" disabled={cursors.length === 0} onClick={() => setCursors((c) => c.slice(0, -1))}>
          Newer
        </Button>
        <Button
          variant="secondary"
          disabled={!query.data?.nextCursor}
          onClick={() => {
            const next = query.data?.nextCursor;
            if (next) setCursors((c) => [...c, next]);
          }}
        >
          Older
        </Button>
      </div>
    </div>
  );
}

function RefreshNote({ updatedAt, fetching }: { updatedAt: number; fetching: boolean }) {
  const now = useNow();
  return (
    <p className="pb-2 text-xs text-slate-500 tabular-nums dark:text-slate-400" aria-live="off">
      Refreshes every 10 s{updatedAt ? ` · updated ${fetching ? "now" : formatAgo(now - updatedAt)}` : ""}
    </p>
  );
}

/**
 * One attempt: its facts on a row, and for a refusal a second, full-width row saying what kind of
 * problem it is and what to do (too long for a column without squeezing the facts).
 */
function AttemptRows({ attempt: a, tokenName }: { attempt: RegistrationAttempt; tokenName: string | undefined }) {
  const e = explainRegistrationResult(a.result);
  const cell = `px-4 ${e.ok ? "py-2.5" : "pt-3 pb-1.5"}`;
  return (
    <tbody
      data-attempt={a.id}
      data-result={a.result}
      className="border-t border-slate-100 first-of-type:border-t-0 dark:border-slate-800"
    >
      <tr className="align-middle">
        <td className={`${cell} w-32 whitespace-nowrap text-slate-600 dark:text-slate-400`}>
          <RelativeTime iso={a.at} />
        </td>
        <td className={`${cell} w-56 whitespace-nowrap`}>
          <AttemptResultBadge result={a.result} />
          {a.count > 1 && (
            <span
              data-testid="attempt-count"
              className="ml-2 text-xs font-medium text-slate-600 tabular-nums dark:text-slate-400"
              title={`${a.count.toLocaleString("en-US")} attempts counted in this row: past the first few of their minute, which are listed one by one`}
            >
              ×{a.count.toLocaleString("en-US")}
            </span>
          )}
        </td>
        <td className={`${cell} max-w-72`}>
          {a.clusterName ? (
            <span className="block truncate font-mono text-xs" title={a.clusterName}>
              {a.clusterName}
            </span>
          ) : (
            <span className="text-slate-500 dark:text-slate-400" title="The request named no cluster">
              —
            </span>
          )}
        </td>
        <td className={`${cell} max-w-48`}>
          {tokenName ? (
            <span className="block truncate" title={`${tokenName} (${a.tokenId})`}>
              {tokenName}
            </span>
          ) : a.tokenId ? (
            <span className="block truncate font-mono text-xs" title="Not in the token list">
              {a.tokenId}
            </span>
          ) : (
            <span className="text-slate-500 dark:text-slate-400" title="No known token was presented">
              —
            </span>
          )}
        </td>
        <td className={`${cell} font-mono text-xs whitespace-nowrap text-slate-600 dark:text-slate-400`}>
          {a.sourceAddress ?? "unknown"}
        </td>
      </tr>
      {!e.ok && (
        <tr>
          <td />
          <td colSpan={4} className="px-4 pb-3">
            <div className="space-y-1 rounded-md bg-slate-50 px-3 py-2 text-sm dark:bg-slate-800/50">
              <p>
                <span className="mr-1.5 text-xs font-semibold tracking-wide text-slate-500 uppercase dark:text-slate-400">
                  {a.result === DEFERRED_RESULT || a.result === PENDING_APPROVAL
                    ? "Not a failure"
                    : e.kind
                      ? PROBLEM_KIND_LABEL[e.kind]
                      : "Problem"}
                </span>
                <span className="font-medium">{e.title}.</span>{" "}
                <span className="text-slate-700 dark:text-slate-300">{e.meaning}</span>
              </p>
              <p className="text-slate-700 dark:text-slate-300">
                <span className="font-medium">What to do:</span> {e.action}
              </p>
              {a.message && (
                <p className="text-xs text-slate-500 dark:text-slate-400">
                  Server said: <q>{a.message}</q>
                </p>
              )}
            </div>
          </td>
        </tr>
      )}
    </tbody>
  );
}
