import { z } from "zod";
import {
  CLUSTER_SORTS,
  DEFAULT_PAGE_SIZE,
  PAGE_SIZES,
  clusterFilterSchema,
  listClustersQuerySchema,
  type ClusterFilterInput,
  type ListClustersQuery,
} from "@/lib/contracts/clusters";

// The cluster list's state as its URL holds it, so a filtered view can be shared. Every key and
// value comes from the list query's contract (lib/contracts/clusters.ts): a filter added there is
// read from and written to the URL here without another list to keep in step.

export const LIST_SORTS = CLUSTER_SORTS;
export type ListSort = ListClustersQuery["sort"];
export type SortOrder = ListClustersQuery["order"];
/** The page sizes the list offers (in the URL as `pageSize`), and the default. */
export { PAGE_SIZES };
export const PAGE_SIZE = DEFAULT_PAGE_SIZE;

export type ClusterFilters = ClusterFilterInput & {
  sort: ListSort;
  order: SortOrder;
  cursor?: string;
  /** one of PAGE_SIZES; PAGE_SIZE when absent */
  pageSize?: number;
};

type FilterKey = keyof ClusterFilterInput;
/** The filter keys, in the contract's order (the order they appear in a URL). */
const FILTER_KEYS = Object.keys(clusterFilterSchema.shape) as FilterKey[];

const query = listClustersQuerySchema.shape;
/** The API's defaults, left out of URLs. */
export const DEFAULT_FILTERS: ClusterFilters = { sort: query.sort.parse(undefined), order: query.order.parse(undefined) };

/** What the list shows, without paging or order: the filter bulk actions, exports and saved views send. */
export function filterOf(f: ClusterFilters): ClusterFilterInput {
  return Object.fromEntries(FILTER_KEYS.flatMap((k) => (f[k] === undefined ? [] : [[k, f[k]]])));
}

/** Whether any filter is set (the list says "no match" rather than "no clusters yet"). */
export const isFiltered = (f: ClusterFilters) => FILTER_KEYS.some((k) => !!f[k]);
/** How many filters are set (the phone's folded "Filters" button shows it). */
export const activeFilterCount = (f: ClusterFilters) => FILTER_KEYS.filter((k) => !!f[k]).length;
/** Every filter cleared (paging and order kept by the caller). */
export const NO_FILTERS: { [K in FilterKey]: undefined } = Object.fromEntries(FILTER_KEYS.map((k) => [k, undefined])) as {
  [K in FilterKey]: undefined;
};

/** A filter with a fixed set of values; any other is free text, kept as typed (trimmed) so that a
 *  bad selector in a shared link gets the server's explanation instead of being dropped. */
const isChoice = (k: FilterKey) => clusterFilterSchema.shape[k].unwrap() instanceof z.ZodEnum;

function read<S extends z.ZodType>(schema: S, raw: string | null): z.output<S> | undefined {
  if (raw === null) return undefined;
  const parsed = schema.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}

const text = (raw: string | null) => raw?.trim() || undefined;

/** Filters from a query string: each key read with its contract schema; unknown keys and bad values are ignored. */
export function filtersFromSearchParams(params: URLSearchParams): ClusterFilters {
  const filters = Object.fromEntries(
    FILTER_KEYS.map((k) => [k, isChoice(k) ? read(clusterFilterSchema.shape[k], params.get(k)) : text(params.get(k))]),
  ) as ClusterFilterInput;
  return {
    ...filters,
    sort: read(query.sort, params.get("sort")) ?? DEFAULT_FILTERS.sort,
    order: read(query.order, params.get("order")) ?? DEFAULT_FILTERS.order,
    cursor: text(params.get("cursor")),
    pageSize: (PAGE_SIZES as readonly number[]).find((n) => String(n) === params.get("pageSize")),
  };
}

/** The query string of a filtered view; defaults are left out so links stay short. */
export function filtersToSearchParams(f: ClusterFilters): URLSearchParams {
  const params = new URLSearchParams();
  for (const k of FILTER_KEYS) {
    const value = f[k];
    if (value) params.set(k, value);
  }
  if (f.sort !== DEFAULT_FILTERS.sort || f.order !== DEFAULT_FILTERS.order) {
    params.set("sort", f.sort);
    params.set("order", f.order);
  }
  if (f.pageSize && f.pageSize !== PAGE_SIZE) params.set("pageSize", String(f.pageSize));
  if (f.cursor) params.set("cursor", f.cursor);
  return params;
}

/**
 * Clicking a column header: a new column starts ascending, the same column flips. Ascending
 * puts the oldest first, which is what triage wants from "Last seen" and "NotReady since"
 * (the longest silent first); "Registered" starts with the newest.
 */
export function nextSort(
  current: Pick<ClusterFilters, "sort" | "order">,
  column: ListSort,
): Pick<ClusterFilters, "sort" | "order"> {
  if (current.sort === column) return { sort: column, order: current.order === "asc" ? "desc" : "asc" };
  return { sort: column, order: column === "registeredAt" ? "desc" : "asc" };
}

/** The list API's query for a view (the console's fetch, and the server page's first load of it). */
export function listQueryParams(f: ClusterFilters): URLSearchParams {
  const params = filtersToSearchParams(f);
  // The API's defaults are the same; sent anyway so the request says what it wants.
  params.set("sort", f.sort);
  params.set("order", f.order);
  params.delete("pageSize");
  params.set("limit", String(f.pageSize ?? PAGE_SIZE));
  return params;
}
