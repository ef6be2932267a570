import "server-only";
import { LagWindow } from "@/lib/domain/admission";
import { processSingleton } from "@/lib/server/process-singletons";

const TICK_MS = 20;
const WINDOW_MS = 1000;

/**
 * The process's recent event-loop delay from a timer-drift probe: a 20 ms timer notes how late it
 * fires, and admission (./admission.ts) reads the last second's p99. Cheaper to read per request
 * than monitorEventLoopDelay, which cannot forget old samples without a reset (the metrics use
 * theirs).
 */
export function eventLoopLag(): { recentMs(): number } {
  return processSingleton("event-loop-lag", () => {
    const window = new LagWindow(WINDOW_MS, TICK_MS);
    let expected = performance.now() + TICK_MS;
    window.record(performance.now(), 0);
    setInterval(() => {
      const now = performance.now();
      window.record(now, now - expected);
      expected = now + TICK_MS;
    }, TICK_MS).unref();
    return { recentMs: () => window.recent(performance.now()) };
  });
}
