import { reasonText } from "@/lib/domain/error-text";
import { ApiRequestError } from "@/lib/client/fetch-json";

/** The server's `details` as "field: message" lines, when it sent any. */
function detailLines(error: unknown): string[] {
  if (!(error instanceof ApiRequestError) || !Array.isArray(error.details)) return [];
  return error.details
    .map((d: unknown) =>
      d && typeof d === "object" && "message" in d
        ? `${"field" in d && d.field ? `${reasonText(d.field)}: ` : ""}${reasonText((d as { message: unknown }).message)}`
        : null,
    )
    .filter((s): s is string => !!s);
}

/**
 * A server's error sentence (and its field details) shown where the action was taken, never a
 * failure dressed as success. Give `error` (an ApiRequestError or any Error) or a `message`.
 */
export function InlineError({ error, message, className = "" }: { error?: unknown; message?: string; className?: string }) {
  const text = message ?? (error instanceof Error ? error.message : "Something went wrong.");
  const details = detailLines(error);
  return (
    <div
      role="alert"
      className={`rounded-md bg-rose-50 px-3 py-2 text-sm text-rose-700 dark:bg-rose-950/50 dark:text-rose-300 ${className}`}
    >
      <p>{text}</p>
      {details.length > 0 && (
        <ul className="mt-1 list-disc pl-5 text-xs">
          {details.map((d) => (
            <li key={d}>{d}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
