import "server-only";
import { db } from "@/lib/server/db/client";
import { dbSecretStore, loadOrCreateFleetCa, type FleetCa } from "./fleet-ca";

// One CA per process, shared through globalThis by the custom server (agent TLS port) and
// the Next bundle (signing), which load this module separately.
const g = globalThis as unknown as { __fleetCa?: Promise<FleetCa> };

export function fleetCa(): Promise<FleetCa> {
  g.__fleetCa ??= loadOrCreateFleetCa(dbSecretStore(db())).catch((err) => {
    g.__fleetCa = undefined;
    throw err;
  });
  return g.__fleetCa;
}
