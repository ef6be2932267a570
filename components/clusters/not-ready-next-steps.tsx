import type { ClusterDetail } from "@/lib/client/clusters";
import { AGENT_OBJECT_NAMES } from "@/lib/domain/agent-kube-calls";
import { AGENT_POD_LABEL_SELECTOR as selector, agentKubectlCommands } from "@/lib/domain/kube-context";
import { Card } from "@/components/ui/card";
import { RelativeTime } from "@/components/ui/relative-time";
import { CopyValue } from "./copy-value";

// The names the shipped manifest uses (lib/domain/agent-manifest.ts), so the commands work as pasted.
const AGENT_NAMESPACE = AGENT_OBJECT_NAMES.namespace;

/** What the agent last said went wrong: a directive it could not carry out, or its API server down. */
function lastError(c: ClusterDetail): { text: string; at: string | null } | null {
  const failed = c.failedDirectives[0];
  if (failed) return { text: `${failed.type}: ${failed.reason}`, at: failed.at };
  if (c.health.apiServer === "down") return { text: "The agent reported its cluster's API server down.", at: c.lastHeartbeatAt };
  if (c.health.apiServer === "degraded")
    return { text: "The agent reported its cluster's API server degraded.", at: c.lastHeartbeatAt };
  return null;
}

/** For a NotReady cluster: where to look next, in the order an engineer would. */
export function NotReadyNextSteps({ cluster }: { cluster: ClusterDetail }) {
  const error = lastError(cluster);
  // With the admin's context template, each command names this cluster's kubectl context.
  const commands = agentKubectlCommands(cluster.kubeContext?.context ?? null);
  const command = (id: string) => commands.find((c) => c.id === id)!.command;
  return (
    <Card title="What to check next" className="border-rose-200 dark:border-rose-900">
      <ol className="list-decimal space-y-4 pl-5 text-sm" data-testid="not-ready-next-steps">
        <li>
          <p>
            {cluster.lastHeartbeatAt ? (
              <>
                The last heartbeat came <RelativeTime iso={cluster.lastHeartbeatAt} />. Is the agent&apos;s pod running? It is in
                namespace <code className="font-mono text-xs">{AGENT_NAMESPACE}</code> with label{" "}
                <code className="font-mono text-xs">{selector}</code>:
              </>
            ) : (
              <>
                No heartbeat has arrived yet. Is the agent&apos;s pod running? It is in namespace{" "}
                <code className="font-mono text-xs">{AGENT_NAMESPACE}</code> with label{" "}
                <code className="font-mono text-xs">{selector}</code>:
              </>
            )}
          </p>
          <div className="mt-1.5 rounded-md bg-slate-50 px-3 py-2 dark:bg-slate-800/60">
            <CopyValue value={command("pods")} what="the pod command" />
          </div>
        </li>
        <li>
          <p>Read its log (it says why it cannot reach the registry, or its API server):</p>
          <div className="mt-1.5 rounded-md bg-slate-50 px-3 py-2 dark:bg-slate-800/60">
            <CopyValue value={command("logs")} what="the log command" />
          </div>
        </li>
        <li>
          {error ? (
            <p data-testid="agent-last-error">
              The agent&apos;s last error
              {error.at && (
                <>
                  {" "}
                  (<RelativeTime iso={error.at} />)
                </>
              )}
              : <span className="font-medium">{error.text}</span>
            </p>
          ) : (
            <p data-testid="agent-last-error">The agent has not reported an error.</p>
          )}
        </li>
      </ol>
    </Card>
  );
}
