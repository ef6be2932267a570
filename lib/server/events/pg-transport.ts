import "server-only";
import pg from "pg";
import { log } from "@/lib/server/log";
import { deliver, setTransport, type FleetEvent } from "./bus";

const CHANNEL = "fleet_events";

/**
 * Relays live events between instances sharing one PostgreSQL with LISTEN/NOTIFY. Every event,
 * this instance's own included, is delivered when it comes back from the database, so all
 * instances see the same order. Reconnects with backoff if the listening connection drops.
 */
export async function startPgTransport(url: string): Promise<() => Promise<void>> {
  const sender = new pg.Pool({ connectionString: url, max: 2 });
  // An idle pooled connection cut by a database outage emits "error" on the pool: unheard, that
  // would end the process. The next publish opens a new one (or delivers locally, below).
  sender.on("error", (err) => log.warn("event relay connection lost", { error: err.message }));
  let listener: pg.Client | null = null;
  let stopped = false;
  let retry = 500;

  // Every failed attempt schedules the next one: a reconnect refused while the database is still
  // away must not end the retries (the listener would stay gone after the outage).
  const reconnectLater = () => {
    if (stopped) return;
    setTimeout(
      () =>
        void connect().catch((err: unknown) => {
          log.warn("event listener could not reconnect; retrying", { error: String(err) });
          reconnectLater();
        }),
      (retry = Math.min(retry * 2, 30_000)),
    );
  };

  const connect = async () => {
    const client = new pg.Client({ connectionString: url });
    client.on("notification", (msg) => {
      if (msg.channel !== CHANNEL || !msg.payload) return;
      try {
        deliver(JSON.parse(msg.payload) as FleetEvent);
      } catch {}
    });
    let lost = false;
    client.on("error", (err) => {
      if (lost) return;
      lost = true;
      log.warn("event listener connection lost; reconnecting", { error: err.message });
      void client.end().catch(() => {});
      if (listener === client) reconnectLater();
    });
    await client.connect();
    await client.query(`LISTEN ${CHANNEL}`);
    retry = 500;
    listener = client;
  };
  await connect();

  setTransport({
    publish(event) {
      sender.query("SELECT pg_notify($1, $2)", [CHANNEL, JSON.stringify(event)]).catch((err) => {
        // The database is unreachable: this instance's subscribers still get the event.
        log.warn("could not relay an event; delivering locally", { error: String(err) });
        deliver(event);
      });
    },
  });

  return async () => {
    stopped = true;
    setTransport(null);
    await listener?.end().catch(() => {});
    await sender.end().catch(() => {});
  };
}
