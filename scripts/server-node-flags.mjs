// The Node/V8 flags the product's process runs with (scripts/start.mjs, the Dockerfile's CMD and
// the test servers of tests/helpers/fleet-server.ts, so benchmarks measure what ships).
//
// --optimize-for-size: V8 grows the heap less between collections. Every connected cluster's
// heartbeats leave garbage behind; by default the heap grew ~40-75 KB per connected cluster
// beyond what was live (~14 KB). Measured with bench:connections, 1,500 clusters heartbeating
// every 10 s on SQLite: RSS 388-405 MB instead of 461-528 MB, for 10-30 % more server CPU per
// heartbeat (1.05-1.68 ms instead of 0.94-1.28 ms, loaded machine). README "Memory per connected
// cluster" says when to drop it.
export const SERVER_NODE_FLAGS = ["--optimize-for-size"];
