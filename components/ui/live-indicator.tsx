import type { LiveState } from "@/lib/client/live-events";

const TEXT: Record<LiveState, { label: string; hint: string; dot: string }> = {
  open: {
    label: "Live",
    hint: "Updates arrive from the server as they happen.",
    dot: "bg-emerald-500",
  },
  connecting: {
    label: "Connecting…",
    hint: "Opening the live update stream.",
    dot: "bg-slate-400",
  },
  down: {
    label: "Reconnecting",
    hint: "The live stream is interrupted; the page refreshes every few seconds until it is back.",
    dot: "bg-amber-500",
  },
};

/** Whether the page is being kept current by the event stream or by polling. */
export function LiveIndicator({ state }: { state: LiveState }) {
  const t = TEXT[state];
  return (
    <p
      role="status"
      title={t.hint}
      className="inline-flex min-w-28 items-center justify-center gap-2 rounded-full border border-slate-200 bg-white px-3 py-1 text-xs font-medium text-slate-700 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-300"
    >
      <span aria-hidden className="relative flex h-2 w-2">
        {state === "open" && (
          <span className={`absolute inline-flex h-full w-full rounded-full opacity-60 motion-safe:animate-ping ${t.dot}`} />
        )}
        <span className={`relative inline-flex h-2 w-2 rounded-full ${t.dot}`} />
      </span>
      {t.label}
      <span className="sr-only">: {t.hint}</span>
    </p>
  );
}
