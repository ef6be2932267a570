// Words for a failure whatever was thrown or answered. `String(x)` on a plain object is
// "[object Object]", which is what a person saw when an error was not an Error (a library's
// rejection with an object, a proxy's JSON where a sentence was expected); these read the sentence
// an object carries, else show the object itself, bounded. Used for refusal and failure reasons
// that reach a log line, the console or a terminal (the agent's directive failures, fleetctl).

const MAX = 500;

/** The text of a value that should have been a sentence: a string as is, an object's `message`, else its JSON. */
export function reasonText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === null || value === undefined) return "";
  if (typeof value === "function") return "a function";
  if (typeof value !== "object") return String(value as number | boolean | bigint | symbol);
  const message = (value as { message?: unknown }).message;
  if (typeof message === "string" && message) return message;
  if (message && typeof message === "object" && message !== value) return reasonText(message);
  try {
    const json = JSON.stringify(value);
    if (json && json !== "{}") return json.length > MAX ? `${json.slice(0, MAX - 1)}…` : json;
  } catch {
    // A cycle or a BigInt: fall through to the value's kind.
  }
  const kind = (value as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof kind === "string" && kind && kind !== "Object" ? `a ${kind}` : "an empty object";
}

/** What went wrong, for a log line or a reason: an Error's message (its name when it has none), or reasonText. */
export function errorText(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  return reasonText(err) || "unknown error";
}
