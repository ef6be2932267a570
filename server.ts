// The product's process: migrates, bootstraps, then serves the console (HTTP, PORT) and the
// agent protocol (HTTPS with client certificates, AGENT_PORT) from one Next.js app.
import http from "node:http";
import next from "next";
import { env, EnvError } from "@/lib/env";
import { bootstrap } from "@/lib/server/bootstrap";
import { log, setLogLevel } from "@/lib/server/log";

async function main() {
  let config;
  try {
    config = env();
  } catch (err) {
    if (err instanceof EnvError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  setLogLevel(config.LOG_LEVEL);
  const dev = config.NODE_ENV === "development";
  // next-auth reads this itself: without a fixed NEXTAUTH_URL, derive the origin from the
  // request's Host, so the console works on whatever address the operator uses.
  if (!config.NEXTAUTH_URL) process.env.AUTH_TRUST_HOST = "true";
  const { shutdownHooks } = await bootstrap(config);

  const app = next({ dev, dir: process.cwd() });
  await app.prepare();
  const handle = app.getRequestHandler();

  const consoleServer = http.createServer((req, res) => {
    stripIdentityHeaders(req);
    void handle(req, res);
  });
  consoleServer.keepAliveTimeout = 65_000;
  await listen(consoleServer, config.PORT, config.HOST);
  log.info("console listening", { url: `http://${displayHost(config.HOST)}:${config.PORT}`, database: config.database.dialect });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info("shutting down", { signal });
    // Stop accepting, let in-flight requests finish, then close the database.
    const closed = new Promise<void>((resolve) => consoleServer.close(() => resolve()));
    consoleServer.closeIdleConnections();
    const timer = setTimeout(() => consoleServer.closeAllConnections(), 10_000).unref();
    await closed;
    clearTimeout(timer);
    for (const hook of shutdownHooks) await hook().catch((err) => log.error("shutdown hook failed", { err: String(err) }));
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}

/** Headers that claim an agent identity are only ever set by this process, never accepted. */
export function stripIdentityHeaders(req: http.IncomingMessage) {
  for (const name of Object.keys(req.headers)) {
    if (name.startsWith("x-fleet-") || name === "x-client-cert" || name === "x-ssl-client-cert") delete req.headers[name];
  }
}

function listen(server: http.Server, port: number, host: string) {
  return new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
}

function displayHost(host: string) {
  return host === "0.0.0.0" || host === "::" ? "localhost" : host;
}

main().catch((err) => {
  log.error("failed to start", { error: err instanceof Error ? err.message : String(err) });
  process.exit(1);
});
