// Text that is only recorded (the registration attempts log keeps what a caller sent, valid or
// not) must still be storable: PostgreSQL refuses NUL in text, and a lone UTF-16 surrogate has
// no UTF-8 form, so either would fail the insert and lose the record. Such characters are kept
// visible as escapes instead (`\u0000`, `\ud800`), and the text is cut on whole characters, never
// between the two halves of a surrogate pair.

const UNSTORABLE =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const escape = (ch: string) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`;

/** `value` with control characters and lone surrogates escaped, at most `maxChars` characters. */
export function storableText(value: string, maxChars: number): string {
  const chars = Array.from(value.replace(UNSTORABLE, escape));
  return chars.length > maxChars ? chars.slice(0, maxChars).join("") : chars.join("");
}

// What neither database keeps as sent: PostgreSQL refuses NUL in text, and a lone surrogate has no
// UTF-8 form (the SQLite driver would quietly turn it into U+FFFD).
const UNKEEPABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * The first string in a parsed request (values and object keys, depth first) that the databases
 * cannot store, as its dotted path; null when there is none. Requests are refused with it at the
 * edge rather than failing their insert.
 */
export function unstorableTextPath(value: unknown): string | null {
  const path: (string | number)[] = [];
  return unstorableIn(value, path) ? path.join(".") || "(body)" : null;
}

// Walks every request body on the hot path (heartbeats): no allocation unless something is found.
// On true, `path` holds where (a key's own path is that of the object that holds it).
function unstorableIn(value: unknown, path: (string | number)[]): boolean {
  if (typeof value === "string") return UNKEEPABLE.test(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      path.push(i);
      if (unstorableIn(value[i], path)) return true;
      path.pop();
    }
  } else if (value && typeof value === "object") {
    for (const key of Object.keys(value)) {
      if (UNKEEPABLE.test(key)) return true;
      path.push(key);
      if (unstorableIn((value as Record<string, unknown>)[key], path)) return true;
      path.pop();
    }
  }
  return false;
}
