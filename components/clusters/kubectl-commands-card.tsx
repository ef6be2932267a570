import type { ClusterDetail } from "@/lib/client/clusters";
import { AGENT_OBJECT_NAMES } from "@/lib/domain/agent-kube-calls";
import { agentKubectlCommands } from "@/lib/domain/kube-context";
import { Card } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { CopyValue } from "./copy-value";

/**
 * A way into the cluster from a terminal: read-only kubectl commands for the agent's namespace,
 * in this cluster's kubectl context (Settings: kubectl context template), each with Copy and all
 * of them at once.
 */
export function KubectlCommandsCard({ cluster }: { cluster: Pick<ClusterDetail, "kubeContext"> }) {
  const kubeContext = cluster.kubeContext;
  const commands = agentKubectlCommands(kubeContext?.context ?? null);
  const all = commands.map((c) => `# ${c.what}\n${c.command}`).join("\n");
  return (
    <Card title="kubectl commands" action={<CopyButton text={all} label="Copy all" />}>
      <p className="mb-3 text-sm text-slate-600 dark:text-slate-400" data-testid="kubectl-context">
        {kubeContext?.context ? (
          <>
            In context <code className="font-mono text-xs break-all">{kubeContext.context}</code>, namespace{" "}
            <code className="font-mono text-xs">{AGENT_OBJECT_NAMES.namespace}</code>. Nothing here changes the cluster or prints
            a Secret&apos;s data.
          </>
        ) : kubeContext && "missingLabels" in kubeContext ? (
          <>
            The kubectl context template names label{kubeContext.missingLabels.length > 1 ? "s" : ""}{" "}
            {kubeContext.missingLabels.map((k) => `“${k}”`).join(", ")} this cluster lacks: the commands run in your current
            context.
          </>
        ) : (
          <>
            In your current context (an admin can set a kubectl context template in Settings), namespace{" "}
            <code className="font-mono text-xs">{AGENT_OBJECT_NAMES.namespace}</code>. Nothing here changes the cluster.
          </>
        )}
      </p>
      <ul className="space-y-2" data-testid="kubectl-commands">
        {commands.map((c) => (
          <li key={c.id} className="rounded-md bg-slate-50 px-3 py-2 dark:bg-slate-800/60">
            <p className="mb-1 text-xs text-slate-600 dark:text-slate-400">{c.what}</p>
            <CopyValue value={c.command} what={`the command for ${c.what}`} />
          </li>
        ))}
      </ul>
    </Card>
  );
}
