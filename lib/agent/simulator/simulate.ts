// `npm run simulate -- --clusters N --interval S ...`: a fleet of simulated agents in one
// process, with a live summary. Logic lives in fleet-simulator.ts; this file wires flags, trust,
// the screen and the clock.
import fs from "node:fs";
import { EXIT_CODES } from "../agent";
import { UsageError, wantsHelp } from "../args";
import { parseSimulateArgs, SIMULATE_USAGE, type SimulateArgs } from "./simulate-args";
import { ConfigError, describeFailure } from "../errors";
import { consoleLogger, type AgentLogger } from "../log";
import { FleetSimulator } from "./fleet-simulator";
import { staticTokenSource } from "../token";
import { pinCa, readCaFile } from "../trust";

async function resolveCa(args: SimulateArgs): Promise<string> {
  if (args.caFile) return readCaFile(args.caFile);
  if (!args.caFingerprint) throw new ConfigError("TRUST_MISSING", "--ca-file or --ca-fingerprint is required");
  try {
    return await pinCa(args.server, args.caFingerprint, { timeoutMs: args.timeoutSeconds * 1000 });
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    const failure = describeFailure(err, "trust", args.server);
    throw new ConfigError(failure.code, failure.message);
  }
}

function readToken(args: SimulateArgs): string | undefined {
  if (args.token) return args.token.trim();
  if (!args.tokenFile) return undefined;
  try {
    return fs.readFileSync(args.tokenFile, "utf8").trim() || undefined;
  } catch (err) {
    throw new ConfigError("TOKEN_FILE_MISSING", `cannot read --token-file ${args.tokenFile}: ${(err as Error).message}`);
  }
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  if (wantsHelp(argv)) {
    console.log(SIMULATE_USAGE);
    return EXIT_CODES.ok;
  }
  let args: SimulateArgs;
  try {
    args = parseSimulateArgs(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    console.error(`fleet-agent CONFIG_INVALID ${err.message}\n\n${SIMULATE_USAGE}`);
    return EXIT_CODES.config;
  }

  const tty = process.stdout.isTTY === true;
  let caPem: string;
  let token: string | undefined;
  try {
    token = readToken(args);
    caPem = await resolveCa(args);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(`fleet-agent ${err.code} ${err.message}`);
    return EXIT_CODES.config;
  }

  const logStream = args.logFile ? fs.createWriteStream(args.logFile, { flags: "a", mode: 0o600 }) : null;
  const logger: AgentLogger | undefined = logStream
    ? consoleLogger({ level: "info", write: (line) => logStream.write(line + "\n") })
    : undefined;

  const sim = new FleetSimulator({
    server: args.server,
    caPem,
    clusters: args.clusters,
    intervalSeconds: args.intervalSeconds,
    token: token ? staticTokenSource(token, args.token ? "--token" : args.tokenFile) : undefined,
    stateDir: args.stateDir,
    concurrency: args.concurrency,
    faults: args.faults,
    prefix: args.prefix,
    keyPool: args.keyPool,
    seed: args.seed,
    duplicateUids: args.duplicateUids,
    timeoutMs: args.timeoutSeconds * 1000,
    logger,
    onProgress: (message) => console.log(`[sim] ${message}`),
  });

  let reporter: NodeJS.Timeout | null = null;
  let deadline: NodeJS.Timeout | null = null;
  let endReason: string | null = null;
  let resolveEnd: (reason: string) => void = () => {};
  const ended = new Promise<string>((resolve) => (resolveEnd = resolve));
  const end = (reason: string) => {
    if (endReason) return;
    endReason = reason;
    resolveEnd(reason);
    void sim.stop();
  };

  // --duration counts from start-up, so key generation cannot make the run overstay.
  if (args.durationSeconds)
    deadline = setTimeout(() => end(`--duration ${args.durationSeconds}s reached`), args.durationSeconds * 1000);
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => end(signal));

  console.log(
    `[sim] ${args.clusters} clusters -> ${args.server.origin}, interval ${args.intervalSeconds}s, concurrency ${args.concurrency}` +
      (args.durationSeconds ? `, duration ${args.durationSeconds}s` : ""),
  );
  await sim.start();
  if (!endReason) {
    reporter = setInterval(
      () => {
        const line = sim.stats.line(Date.now());
        if (tty) process.stdout.write(`\r\x1b[2K${line}`);
        else console.log(line);
      },
      tty ? 1000 : 5000,
    );
    // Every agent may also end on its own (all refused, all disconnected ...).
    void sim.done().then(() => end("every simulated agent has ended"));
  }

  const reason = await ended;
  if (reporter) clearInterval(reporter);
  if (deadline) clearTimeout(deadline);
  if (tty) process.stdout.write("\n");
  console.log(`[sim] stopping (${reason})`);
  await sim.stop();
  console.log(sim.stats.summary(Date.now()));
  if (logStream) await new Promise<void>((resolve) => logStream.end(resolve));
  return sim.stats.registered > 0 ? EXIT_CODES.ok : EXIT_CODES.failed;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`fleet-agent AGENT_FAILED ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(EXIT_CODES.failed);
  },
);
