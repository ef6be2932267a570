// The Node/V8 flags the product's process runs with (runtime/start.mjs and the test servers of
// tests/helpers/fleet-server.ts, so benchmarks measure what ships; the Dockerfile's CMD and
// `npm run serve` repeat them).
//
// V8 lets the heap grow far past what is live before it collects (a factor it picks between 1.1
// and 4), so after a registration wave most of a small fleet's RSS is V8's headroom, not our data.
// --heap-growing-percent=25 collects the old generation once it is 25 % past what the last
// collection kept, and --max-semi-space-size=8 halves the young generation: less memory at small
// fleets for no more CPU (docs/capacity.md has the figures and the bench that measures them).
//
// --optimize-for-size keeps the heap smallest but costs far more CPU at fleet size, and on two
// cores heartbeats come first, so it is not used.
export const SERVER_NODE_FLAGS = ["--heap-growing-percent=25", "--max-semi-space-size=8"];
