// The Node/V8 flags the product's process runs with (scripts/start.mjs and the test servers of
// tests/helpers/fleet-server.ts, so benchmarks measure what ships; the Dockerfile's CMD and
// `npm run serve` repeat them). None today:
//
// --optimize-for-size was tried (V8 grows the heap less between collections: at 1,500 clusters
// RSS 388-405 MB instead of 461-528 MB) and dropped: in bench:soak at 10,000 clusters x 10 s on
// SQLite it doubled the server's CPU (69 % of a core instead of 33-48 %), made the ramp 233 s
// instead of 126 s and the heartbeat p99 ~400 ms instead of 150-176 ms, for 1.15 GB of RSS
// instead of ~1.5 GB. Heartbeats come first; memory at 10,000 connections is a job for a
// TLS-terminating proxy (README, "Memory per connected cluster").
export const SERVER_NODE_FLAGS = [];
