// `npm run agent -- --server URL --token-file F --name N ...`: the reference agent as a process.
// A thin wrapper: flags -> FleetAgent -> exit code. All behaviour lives in agent.ts.
import { AGENT_USAGE, parseAgentArgs, UsageError, wantsHelp } from "./args";
import { EXIT_CODES, FleetAgent } from "./agent";
import { resolveClusterCaFingerprint } from "./cluster-ca";
import { ConfigError } from "./errors";
import { consoleLogger } from "./log";
import { FileStateStore } from "./state";
import { fileTokenSource } from "./token";
import { readCaFile, type TrustSpec } from "./trust";

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  if (wantsHelp(argv)) {
    console.log(AGENT_USAGE);
    return EXIT_CODES.ok;
  }
  let args;
  try {
    args = parseAgentArgs(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    console.error(`fleet-agent CONFIG_INVALID ${err.message}\n\n${AGENT_USAGE}`);
    return EXIT_CODES.config;
  }
  const logger = consoleLogger({ level: args.logLevel, fields: { cluster: args.name } });

  let trust: TrustSpec;
  try {
    trust = args.caFile
      ? { caPem: await readCaFile(args.caFile) }
      : args.caFingerprint
        ? { caFingerprint: args.caFingerprint }
        : { fromState: true };
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    logger.log({ level: "error", code: err.code, message: err.message });
    return EXIT_CODES.config;
  }

  const agent = new FleetAgent({
    server: args.server,
    name: args.name,
    labels: args.labels,
    apiServerUrl: args.apiServerUrl,
    agentVersion: args.agentVersion,
    kubernetesVersion: args.kubernetesVersion,
    store: new FileStateStore(args.stateDir),
    trust,
    token: fileTokenSource(args.tokenFile),
    clusterCaFingerprint: () => resolveClusterCaFingerprint({ file: args.clusterCaFile, stateDir: args.stateDir, logger }),
    heartbeatIntervalSeconds: args.heartbeatIntervalSeconds,
    requestTimeoutMs: args.timeoutSeconds * 1000,
    logger,
  });
  for (const signal of ["SIGTERM", "SIGINT"] as const) process.once(signal, () => agent.stop());
  const result = await agent.run();
  return result.exitCode;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(`fleet-agent AGENT_FAILED ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = EXIT_CODES.failed;
  },
);
