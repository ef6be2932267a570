// The Node/V8 flags the product's process runs with (scripts/start.mjs and the test servers of
// tests/helpers/fleet-server.ts, so benchmarks measure what ships; the Dockerfile's CMD and
// `npm run serve` repeat them).
//
// V8 lets the heap grow far past what is live before it collects (a factor it picks between 1.1
// and 4): after a registration wave the server's heap stood at 280-450 MB with 150-190 MB live.
// --heap-growing-percent=25 collects the old generation once it is 25 % past what the last
// collection kept, and --max-semi-space-size=8 halves the young generation. bench:soak on SQLite,
// back to back on the 2-core machine (README, "Issue 12 part B, final round"): 1,250 clusters x
// 10 s RSS max 578 -> 473 MB with p99 59 -> 50 ms; 2,500 clusters RSS 833 -> ~590 MB with the
// server's CPU 36 -> 33 % and the ramp 141 -> 135 s.
//
// --optimize-for-size was tried earlier and dropped: at 10,000 clusters it doubled the server's
// CPU (69 % of a core instead of 33-48 %) and the heartbeat p99 for ~25 % less memory.
export const SERVER_NODE_FLAGS = ["--heap-growing-percent=25", "--max-semi-space-size=8"];
