import { z } from "zod";
import { CLUSTER_STATUSES } from "@/lib/domain/status";

// Wire pieces several resources share. Times travel as ISO 8601 strings.

export const isoTime = z.string();
// The statuses come from the status rule table (lib/domain/status.ts), in its order.
export const clusterStatusSchema = z.enum(CLUSTER_STATUSES);
export const labelsMap = z.record(z.string(), z.string());
export const idName = z.object({ id: z.string(), name: z.string() });

/** A list answer: `{ items }`. */
export const itemsOf = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item) });
/** A keyset-paged list answer. */
export const pageOf = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), nextCursor: z.string().nullable() });
