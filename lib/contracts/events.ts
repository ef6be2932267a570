import { z } from "zod";
import { isoTime } from "./common";

// The live event stream (GET /api/v1/events): each message is `event: <type>` with the event as
// its JSON data. The server's bus publishes these, the console parses them with this schema and
// the OpenAPI document describes them from it.

const clusterRef = { clusterId: z.string(), name: z.string(), at: isoTime };

export const fleetEventSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("cluster.status"),
    ...clusterRef,
    from: z.string().nullable(),
    to: z.string(),
    reason: z.string(),
  }),
  z.object({ type: z.literal("cluster.registered"), ...clusterRef, reregistered: z.boolean() }),
  z.object({ type: z.literal("cluster.removed"), ...clusterRef }),
  z.object({ type: z.literal("cluster.updated"), ...clusterRef }),
  z.object({
    type: z.literal("fleet.summary"),
    at: isoTime,
    heartbeatsPerSecond: z.number(),
    /** clusters by status */
    counts: z.record(z.string(), z.number()),
  }),
  z.object({
    type: z.literal("fleet.enrollment"),
    at: isoTime,
    total: z.number(),
    enrolled: z.number(),
    /** clusters blocked on each checklist item, by item key */
    blockedBy: z.record(z.string(), z.number()),
    labels: z.record(z.string(), z.string()),
  }),
  /** The pending registration requests changed (one recorded, decided or expired): how many wait now. */
  z.object({ type: z.literal("registration.requests"), pending: z.number(), at: isoTime }),
  z
    .object({ type: z.literal("instance.heartbeats"), instanceId: z.string(), perSecond: z.number(), at: isoTime })
    .describe("Between instances only (summed into fleet.summary); never sent on the stream."),
]);
export type FleetEvent = z.infer<typeof fleetEventSchema>;
export type FleetEventType = FleetEvent["type"];
export type FleetEventOf<T extends FleetEventType> = Extract<FleetEvent, { type: T }>;

/** Every event type, in the union's order. */
export const FLEET_EVENT_TYPES = fleetEventSchema.options.map((o) => o.shape.type.value) as readonly FleetEventType[];
