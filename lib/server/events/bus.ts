import "server-only";
import { EventEmitter } from "node:events";
import { processSingleton } from "@/lib/server/process-singletons";

/** What the live event stream carries (GET /api/v1/events). */
export type FleetEvent =
  | {
      type: "cluster.status";
      clusterId: string;
      name: string;
      from: string | null;
      to: string;
      reason: string;
      at: string;
    }
  | { type: "cluster.registered"; clusterId: string; name: string; reregistered: boolean; at: string }
  | { type: "cluster.removed"; clusterId: string; name: string; at: string }
  | { type: "cluster.updated"; clusterId: string; name: string; at: string }
  | { type: "fleet.summary"; at: string; heartbeatsPerSecond: number; counts: Record<string, number> }
  | {
      type: "fleet.enrollment";
      at: string;
      total: number;
      enrolled: number;
      blockedBy: Record<string, number>;
      labels: Record<string, string>;
    }
  /** The pending registration requests changed (one recorded, decided or expired): how many wait now. */
  | { type: "registration.requests"; pending: number; at: string }
  /** Each instance's own heartbeat rate; summed into fleet.summary by whoever serves a stream. */
  | { type: "instance.heartbeats"; instanceId: string; perSecond: number; at: string };

type Transport = { publish(event: FleetEvent): void };

// One emitter per process (the custom server and the Next bundle load this module separately).
// With PostgreSQL a transport relays events between instances.
function state() {
  return processSingleton("event-bus", () => ({
    emitter: new EventEmitter().setMaxListeners(0),
    transport: null as Transport | null,
  }));
}

/** Publishes to this instance's subscribers and, through the transport, to the other instances. */
export function publish(event: FleetEvent) {
  const s = state();
  if (s.transport) s.transport.publish(event);
  else s.emitter.emit("event", event);
}

/** Delivers an event that arrived from the transport (including this instance's own). */
export function deliver(event: FleetEvent) {
  state().emitter.emit("event", event);
}

export function setTransport(transport: Transport | null) {
  state().transport = transport;
}

export function subscribe(fn: (event: FleetEvent) => void): () => void {
  const { emitter } = state();
  emitter.on("event", fn);
  return () => emitter.off("event", fn);
}

export function subscriberCount(): number {
  return state().emitter.listenerCount("event");
}
