import "server-only";
import type { DehydratedState } from "@tanstack/react-query";
import type { ConsoleRoute } from "@/lib/domain/page-roles";
import { requirePage } from "@/lib/server/auth/page-auth";
import type { Principal } from "@/lib/server/auth/principal";
import { pageData } from "./page-data";
import { PAGE_QUERIES, type PageRequest } from "./page-queries";

/** A page's props as Next hands them to it. */
export type PageProps = {
  params?: Promise<Record<string, string>>;
  searchParams?: Promise<Record<string, string | string[] | undefined>>;
};

/**
 * How every console page starts: the signed-in user with the page's role (lib/domain/page-roles.ts),
 * and the page's first queries (page-queries.ts) loaded for the client's cache, to hand to
 * <HydrationBoundary>. A query the role may not read, or that fails, is left to the client.
 * `now` is the instant the data was read: the page renders its relative times against it, on the
 * server and while hydrating (<NowProvider>), so both print the same text.
 */
export async function openPage(
  route: ConsoleRoute,
  props: PageProps = {},
): Promise<{ principal: Principal; state: DehydratedState; now: number } & PageRequest> {
  const principal = await requirePage(route);
  const [params, searchParams] = await Promise.all([props.params, props.searchParams]);
  const search = new URLSearchParams();
  // A repeated parameter (?a=1&a=2) is not one the console writes: the pages read single values.
  for (const [k, v] of Object.entries(searchParams ?? {})) if (typeof v === "string") search.set(k, v);
  const req: PageRequest = { params: params ?? {}, search };
  const state = await pageData(principal, PAGE_QUERIES[route](req));
  return { principal, state, now: Date.now(), ...req };
}
