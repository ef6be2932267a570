import type { z } from "zod";

// JSON typed into a textarea, checked before it is sent: the parser's own message (with the
// line and column modern engines give) and then the schema's, as one sentence per problem.

export type JsonCheck<T> = { ok: true; value: T } | { ok: false; problems: string[] };

export function checkJson<T>(text: string, schema: z.ZodType<T>): JsonCheck<T> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return { ok: false, problems: [`Not valid JSON: ${(err as Error).message}`] };
  }
  // Every document edited this way is an object; say so plainly rather than in schema words.
  if (raw === null || typeof raw !== "object" || Array.isArray(raw))
    return { ok: false, problems: ['Must be a JSON object: { "key": value, … }.'] };
  const parsed = schema.safeParse(raw);
  if (parsed.success) return { ok: true, value: parsed.data };
  return {
    ok: false,
    problems: parsed.error.issues.map((i) => (i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message)),
  };
}

export function prettyJson(value: unknown): string {
  return JSON.stringify(value, null, 2);
}
