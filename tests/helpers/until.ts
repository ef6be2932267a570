/**
 * Polls `fn` until it returns something truthy and returns that; past `ms`, throws with `what`
 * (and `detail()`, say an agent's output, to see why). Tests wait for conditions, not for time.
 */
export async function until<T>(
  what: string,
  fn: () => Promise<T | undefined | false | null>,
  ms = 30_000,
  detail?: () => string,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${detail ? `\n${detail()}` : ""}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
