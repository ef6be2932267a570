import fs from "node:fs/promises";
import type { TokenSource } from "./agent";

/** The token file: read fresh on every attempt (an operator may replace it), deleted once used. */
export function fileTokenSource(file: string | undefined): TokenSource | undefined {
  if (!file) return undefined;
  return {
    describe: file,
    async read() {
      try {
        return (await fs.readFile(file, "utf8")).trim() || null;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
        throw err;
      }
    },
    async consumed() {
      await fs.rm(file, { force: true });
    },
  };
}

/** A token given directly (the simulator's --token): never deleted, since many clusters share it. */
export function staticTokenSource(token: string, describe = "--token"): TokenSource {
  return { describe, read: async () => token };
}
