import { formatDuration } from "@/components/ui/format";

/** The rule behind NotReady, in words, wherever a status or a "last seen" is shown. */
export function ThresholdNote({ seconds }: { seconds: number }) {
  return (
    <span className="text-slate-600 dark:text-slate-400">
      NotReady after <span className="whitespace-nowrap tabular-nums">{formatDuration(seconds * 1000)}</span> without a heartbeat
    </span>
  );
}
