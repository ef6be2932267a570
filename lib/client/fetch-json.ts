import type { z } from "zod";

/** An API error as the console shows it: the server's code and sentence. */
export class ApiRequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

type Init = { method?: string; body?: unknown; signal?: AbortSignal };

// Answers are checked against their contract (lib/contracts) in development and tests, where a
// drifted shape should fail loudly; a production console trusts the server and only casts.
// eslint-disable-next-line no-restricted-syntax -- the build mode, inlined by the bundler, not configuration (lib/env.ts is server-only)
const CHECK_ANSWERS = process.env.NODE_ENV !== "production";

/**
 * fetch for the admin API: JSON in and out, error bodies turned into ApiRequestError. With
 * `schema` (the route's declared response) the answer is typed by it, and parsed outside production.
 */
export async function fetchJson<S extends z.ZodType>(url: string, init: Init & { schema: S }): Promise<z.output<S>>;
export async function fetchJson<T>(url: string, init?: Init): Promise<T>;
export async function fetchJson(url: string, init?: Init & { schema?: z.ZodType }): Promise<unknown> {
  const res = await fetch(url, {
    method: init?.method ?? "GET",
    headers: init?.body === undefined ? undefined : { "content-type": "application/json" },
    body: init?.body === undefined ? undefined : JSON.stringify(init.body),
    signal: init?.signal,
    credentials: "same-origin",
  });
  if (res.status === 204) return undefined;
  const data: unknown = await res.json().catch(() => null);
  if (!res.ok) {
    const body = (data ?? {}) as { error?: string; message?: string; details?: unknown };
    throw new ApiRequestError(
      res.status,
      body.error ?? "http_error",
      body.message ?? `Request failed (${res.status}).`,
      body.details,
    );
  }
  if (!init?.schema || !CHECK_ANSWERS) return data;
  const parsed = init.schema.safeParse(data);
  if (!parsed.success) {
    const where = parsed.error.issues.map((i) => `${i.path.join(".") || "(body)"}: ${i.message}`).slice(0, 3);
    throw new ApiRequestError(
      res.status,
      "contract_mismatch",
      `The answer of ${url} is not the declared shape (${where.join("; ")}).`,
    );
  }
  return parsed.data;
}
