import "server-only";

// Process-wide singletons, in one registry on globalThis. Why not a module-level `let`: one
// process loads most server modules twice, once for the custom server (server.ts: the agent TLS
// port's direct paths, the workers) and once inside the Next.js server bundle (the routes), and
// `next dev` re-evaluates modules on every edit. A module variable would then exist twice (two
// database pools, two event buses that never hear each other, two caches invalidated apart);
// globalThis is the one object both copies share.

type Registry = Map<string, unknown>;
const holder = globalThis as unknown as { __fleetProcessSingletons?: Registry };

/**
 * The process's one value named `name`, made by `create` on first use. Callers keep mutable state
 * in the returned object's fields (never replace the object), so every module copy sees it.
 */
export function processSingleton<T>(name: string, create: () => T): T {
  const registry = (holder.__fleetProcessSingletons ??= new Map());
  if (!registry.has(name)) registry.set(name, create());
  return registry.get(name) as T;
}
