/** The rule behind NotReady, in words, wherever a status or a "last seen" is shown. */
export function ThresholdNote({ seconds }: { seconds: number }) {
  return (
    <span className="text-slate-600 dark:text-slate-400">
      NotReady after <span className="whitespace-nowrap tabular-nums">{formatSeconds(seconds)}</span> without a heartbeat
    </span>
  );
}

export function formatSeconds(seconds: number): string {
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 3600)} h`;
}
