import "server-only";
import { errorText } from "@/lib/domain/error-text";
import { QueryClient, dehydrate, type DehydratedState, type QueryKey } from "@tanstack/react-query";
import type { ReplyOf, RouteContract } from "@/lib/contracts/route";
import { hasRole } from "@/lib/domain/roles";
import type { Principal } from "@/lib/server/auth/principal";
import { authorize, type Authorized } from "@/lib/server/auth/authorize";
import { ApiError } from "@/lib/server/api/errors";
import { log } from "@/lib/server/log";

/**
 * A page's first data, loaded while the page renders on the server and handed to the client's
 * query cache (<HydrationBoundary>), so a deep link paints its content without a round of API
 * calls after the JavaScript starts. Each entry names the route contract the client's query reads
 * (its role is checked as the API checks it) and the query key that query uses; the value is the
 * reply in its JSON form, exactly what the client's fetch would have cached. An entry that fails
 * or that the role may not read is left out: the client then asks the API itself, as before, and
 * shows the API's answer (error or forbidden) the usual way.
 */
export type PageQuery<C extends RouteContract = RouteContract> = {
  contract: C;
  key: QueryKey;
  /** Loads as the route's handler would, given what authorization gave the caller (their scope). */
  load: (auth: Authorized) => Promise<ReplyOf<C>>;
  /** The client reads it with useInfiniteQuery: the reply is its first page. */
  infinite?: boolean;
  /**
   * `load` answers a caller whose role comes from teams as the route's handler does (bounded to
   * `auth.scope`, or only their own), so it loads for them too; without it, only for a fleet role
   * at the route's role.
   */
  forTeams?: boolean;
};

export const pageQuery = <const C extends RouteContract>(
  contract: C,
  key: QueryKey,
  load: (auth: Authorized) => Promise<ReplyOf<C>>,
  options: { infinite?: boolean; forTeams?: boolean } = {},
): PageQuery => ({ contract, key, load, ...options }) as PageQuery;

/** Loads the queries at once (none waits on another) and returns the cache state to hydrate. */
export async function pageData(principal: Principal, queries: readonly PageQuery[]): Promise<DehydratedState> {
  const client = new QueryClient();
  await Promise.all(
    queries.map(async (q) => {
      if (!hasRole(principal.role, q.contract.role) && !q.forTeams) return;
      try {
        // The API's own authorization step: a fleet role reads the whole fleet (scope null), a
        // team member their teams' part; anyone else is refused (left to the client).
        const reply = await q.load(await authorize(q.contract, principal, {}));
        // The JSON form: dates as strings, undefined dropped, as the browser's fetch would see it.
        const json: unknown = JSON.parse(JSON.stringify(reply ?? null));
        client.setQueryData(q.key, q.infinite ? { pages: [json], pageParams: [undefined] } : json);
      } catch (err) {
        // A refusal (not found, bad query) is the client's to show, from its own request.
        if (err instanceof ApiError) return;
        log.warn("page data left to the client", {
          path: q.contract.path,
          error: errorText(err),
        });
      }
    }),
  );
  return dehydrate(client);
}
