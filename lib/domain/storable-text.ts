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
