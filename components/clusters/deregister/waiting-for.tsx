/** What the current step waits for, in the server's words, with a pulsing dot while it waits. */
export function WaitingFor({ text }: { text: string | null }) {
  if (!text) return null;
  return (
    <p className="flex items-start gap-2.5 rounded-md bg-sky-50 px-3 py-2 text-sm text-sky-900 dark:bg-sky-950/60 dark:text-sky-200">
      <span aria-hidden className="relative mt-1.5 flex h-2 w-2 shrink-0">
        <span className="absolute inline-flex h-full w-full animate-ping rounded-full bg-sky-400 opacity-60 motion-reduce:hidden" />
        <span className="relative inline-flex h-2 w-2 rounded-full bg-sky-500" />
      </span>
      <span>
        <span className="font-medium">Waiting for: </span>
        <span data-testid="waiting-for">{text}</span>
      </span>
    </p>
  );
}
