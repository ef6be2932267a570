"use client";

import { CopyButton } from "@/components/ui/copy-button";
import type { ClusterCleanup } from "./cluster-cleanup";

/**
 * The last step's in-cluster cleanup: the fleet forgot the cluster, the cluster has not forgotten
 * the agent. Says what is left there and gives the one command that removes it.
 */
export function ClusterCleanupPanel({ cleanup, clusterName }: { cleanup: ClusterCleanup; clusterName: string }) {
  return (
    <section
      aria-labelledby="cluster-cleanup-title"
      data-testid="cluster-cleanup"
      data-agent-disconnected={cleanup.agentDisconnected}
      className={`space-y-3 rounded-md border px-4 py-3 text-sm ${
        cleanup.agentDisconnected
          ? "border-slate-200 dark:border-slate-800"
          : "border-amber-300 bg-amber-50/60 dark:border-amber-800 dark:bg-amber-950/30"
      }`}
    >
      <h3 id="cluster-cleanup-title" className="font-semibold">
        Clean up the cluster
      </h3>
      <p className="text-slate-700 dark:text-slate-300">
        {cleanup.agentDisconnected
          ? `The fleet has forgotten ${clusterName}, but its Kubernetes cluster still holds the agent's objects. Until the command below runs there, this is left:`
          : `The agent never acknowledged the disconnect, so ${clusterName}'s Kubernetes cluster may still run it. Until the command below runs there, this is left:`}
      </p>
      <ul aria-label="Left in the cluster" className="list-disc space-y-1 pl-5">
        {cleanup.leftovers.map((l) => (
          <li key={l.key} data-leftover={l.key}>
            <span className="break-words font-medium">{l.what}</span>
            <span className="text-slate-600 dark:text-slate-400">: {l.detail}</span>
          </li>
        ))}
      </ul>
      <div>
        <p id="cluster-cleanup-command-label" className="mb-1 text-slate-700 dark:text-slate-300">
          Run with kubectl&apos;s context set to that cluster (change <code className="font-mono text-xs">fleet-system</code> if
          the agent was installed in another namespace):
        </p>
        <div className="flex flex-col gap-2 sm:flex-row sm:items-start">
          <pre
            aria-labelledby="cluster-cleanup-command-label"
            data-testid="cluster-cleanup-command"
            tabIndex={0}
            className="min-w-0 flex-1 whitespace-pre-wrap break-all rounded-md bg-slate-100 px-3 py-2 font-mono text-xs text-slate-800 dark:bg-slate-800 dark:text-slate-200"
          >
            {cleanup.command}
          </pre>
          <CopyButton text={cleanup.command} label="Copy command" />
        </div>
      </div>
    </section>
  );
}
