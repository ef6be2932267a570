"use client";

import { useState } from "react";
import { agentCommand, agentManifest, isLoopbackUrl, labelsToSend, manifestFileName } from "@/lib/domain/agent-manifest";
import { EMPTY_POD_OPTIONS, parseAgentPodOptions, type AgentPodOptions } from "@/lib/domain/agent-pod-options";
import { DNS_LABEL, labelValueProblem } from "@/lib/domain/labels";
import { useFleetFacts, type MintedToken } from "@/lib/client/tokens";
import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { inputClass } from "@/components/ui/field";
import { Skeleton } from "@/components/ui/skeleton";
import { ErrorState } from "@/components/ui/states";
import { AgentAdvancedOptions } from "./agent-advanced-options";
import { CodeBlock } from "./code-block";
import { downloadText } from "./download";
import { FieldError, selectClass } from "@/components/ui/field-error";
import { LabelChip } from "@/components/ui/label-chips";

/** A cluster name to start from: the token's name made into a DNS label. */
function suggestClusterName(tokenName: string): string {
  const slug = tokenName
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/-+/g, "-")
    .replace(/^-|-$/g, "")
    .slice(0, 63)
    .replace(/-$/, "");
  return slug || "my-cluster";
}

/**
 * The freshly minted token, shown once, with everything needed to use it: the agent command and
 * a Kubernetes manifest built in the browser. The token lives only in this component's props;
 * closing the panel is the only way out and forgets it.
 *
 * `boundCluster`: the token is bound to this cluster (re-enrolment or a claim); the name is fixed
 * and no labels are asked for, since the cluster keeps its own.
 */
export function MintedTokenPanel({
  minted,
  onClose,
  boundCluster,
}: {
  minted: MintedToken;
  onClose: () => void;
  boundCluster?: string;
}) {
  const fleet = useFleetFacts();
  const [clusterName, setClusterName] = useState(() => boundCluster ?? suggestClusterName(minted.name));
  const suggested =
    fleet.data && !boundCluster
      ? labelsToSend({
          requiredLabels: fleet.data.requiredLabels,
          fixedLabels: minted.fixedLabels,
          allowedLabels: minted.allowedLabels,
        })
      : [];
  const [labelValues, setLabelValues] = useState<Record<string, string>>({});
  const valueOf = (key: string) => labelValues[key] ?? suggested.find((s) => s.key === key)?.value ?? "";

  const nameError = DNS_LABEL.test(clusterName)
    ? null
    : "Lowercase letters, digits and '-', starting and ending with a letter or digit (at most 63).";
  const labels = Object.fromEntries(suggested.map((s) => [s.key, valueOf(s.key).trim()]).filter(([, v]) => v));
  const fixed = Object.entries(minted.fixedLabels);
  const [advanced, setAdvanced] = useState(EMPTY_POD_OPTIONS);
  const parsedOptions = parseAgentPodOptions(advanced);
  // A field with a problem stays out of the command and manifest; its inline error says why.
  const podOptions = Object.fromEntries(
    Object.entries(parsedOptions.options).filter(([key]) => !(key in parsedOptions.problems)),
  ) as AgentPodOptions;

  return (
    <section
      aria-labelledby="minted-token-title"
      className="mb-6 rounded-lg border border-amber-300 bg-white shadow-sm dark:border-amber-800 dark:bg-slate-900"
    >
      <header className="flex items-center justify-between gap-4 border-b border-amber-200 bg-amber-50 px-5 py-3 dark:border-amber-900 dark:bg-amber-950/40">
        <h2 id="minted-token-title" className="text-sm font-semibold">
          Token “{minted.name}” minted
        </h2>
        <Button variant="ghost" onClick={onClose} aria-label="Close and forget the token">
          Close
        </Button>
      </header>
      <div className="space-y-6 p-5">
        <div className="space-y-2">
          <p className="text-sm font-semibold text-amber-900 dark:text-amber-200">
            Copy this token now — you won’t see it again.
          </p>
          <p className="text-sm text-slate-600 dark:text-slate-400">
            Only a hash is stored. If it is lost, revoke it and mint another. Treat it like a password: anyone holding it can{" "}
            {boundCluster
              ? `register the cluster ${boundCluster} (and no other) once`
              : `register ${minted.maxClusters === 1 ? "a cluster" : `up to ${minted.maxClusters.toLocaleString()} clusters`}`}{" "}
            until it expires.
          </p>
          <div className="flex items-center gap-2">
            <code
              data-testid="minted-token"
              aria-label="Registration token"
              className="min-w-0 flex-1 rounded-md border border-slate-300 bg-slate-50 px-3 py-2 font-mono text-sm break-all text-slate-900 select-all dark:border-slate-700 dark:bg-slate-950 dark:text-slate-100"
            >
              {minted.token}
            </code>
            <CopyButton text={minted.token} label="Copy token" />
            <Button variant="secondary" onClick={() => downloadText("token.txt", `${minted.token}\n`)}>
              Download token.txt
            </Button>
          </div>
        </div>

        <div className="space-y-4 border-t border-slate-200 pt-5 dark:border-slate-800">
          <div>
            <h3 className="text-sm font-semibold">Run the agent</h3>
            <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">
              {boundCluster
                ? `Write the token to the agent's token file (a running agent picks it up), or install the agent afresh below. ${boundCluster} keeps its labels; labels an agent sends are ignored.`
                : "Name the cluster and fill in its labels; the command and manifest below follow as you type."}
            </p>
          </div>
          {fleet.isPending ? (
            <Skeleton className="h-48 w-full" />
          ) : fleet.isError ? (
            <ErrorState
              title="Could not load the fleet's agent settings"
              message={`${fleet.error.message} The token above is still valid; copy it before retrying.`}
              onRetry={() => void fleet.refetch()}
            />
          ) : (
            <>
              <div className="grid grid-cols-3 gap-4">
                <div className="space-y-1.5">
                  <label htmlFor="agent-cluster-name" className="block text-sm font-medium">
                    Cluster name
                  </label>
                  <input
                    id="agent-cluster-name"
                    className={`${inputClass} font-mono`}
                    value={clusterName}
                    readOnly={!!boundCluster}
                    maxLength={63}
                    aria-invalid={nameError ? true : undefined}
                    aria-describedby={nameError ? "agent-cluster-name-error" : undefined}
                    onChange={(e) => setClusterName(e.target.value)}
                  />
                  <FieldError id="agent-cluster-name-error" message={nameError} />
                </div>
                {suggested.map((s) => {
                  const id = `agent-label-${s.key.replace(/[^A-Za-z0-9_-]/g, "-")}`;
                  const value = valueOf(s.key);
                  const problem = value.trim() === "" ? `Every cluster needs a ${s.key} label.` : labelValueProblem(value.trim());
                  return (
                    <div key={s.key} className="space-y-1.5">
                      <label htmlFor={id} className="block text-sm font-medium">
                        Label <span className="font-mono">{s.key}</span>
                      </label>
                      {s.choices ? (
                        <select
                          id={id}
                          className={`${selectClass} w-full font-mono`}
                          value={value}
                          onChange={(e) => setLabelValues((v) => ({ ...v, [s.key]: e.target.value }))}
                        >
                          {s.choices.map((c) => (
                            <option key={c}>{c}</option>
                          ))}
                        </select>
                      ) : (
                        <input
                          id={id}
                          className={`${inputClass} font-mono`}
                          placeholder={s.key === "region" ? "eu-west-1" : s.key === "env" ? "prod" : "value"}
                          value={value}
                          aria-invalid={problem ? true : undefined}
                          aria-describedby={problem ? `${id}-error` : undefined}
                          onChange={(e) => setLabelValues((v) => ({ ...v, [s.key]: e.target.value }))}
                        />
                      )}
                      <FieldError id={`${id}-error`} message={problem} />
                    </div>
                  );
                })}
              </div>
              {fixed.length > 0 && (
                <p className="flex flex-wrap items-center gap-1.5 text-sm text-slate-600 dark:text-slate-400">
                  The token adds{" "}
                  {fixed.map(([k, v]) => (
                    <LabelChip key={k} k={k} v={v} />
                  ))}{" "}
                  by itself.
                </p>
              )}
              {isLoopbackUrl(fleet.data.agentUrl) && (
                <p className="rounded-md bg-sky-50 px-3 py-2 text-sm text-sky-900 ring-1 ring-sky-200 ring-inset dark:bg-sky-950/50 dark:text-sky-200 dark:ring-sky-900">
                  The agent address {fleet.data.agentUrl} points at this machine: fine for the command on this host, but a cluster
                  needs an address it can reach — set <code className="font-mono">AGENT_HOSTNAMES</code> on the server.
                </p>
              )}
              <AgentAdvancedOptions value={advanced} problems={parsedOptions.problems} onChange={setAdvanced} />
              <CodeBlock
                id="agent-command"
                title="Agent command"
                wrap
                maxHeight="max-h-40"
                text={agentCommand({ ...fleet.data, clusterName, labels, apiServerUrl: podOptions.apiServerUrl })}
              />
              <p className="-mt-2 text-xs text-slate-500 dark:text-slate-400">
                Run it from a checkout of this project with the token saved as <code className="font-mono">token.txt</code>; the
                agent deletes the file once the cluster is registered.
              </p>
              <ManifestBlock
                text={agentManifest({ ...fleet.data, ...podOptions, clusterName, labels, token: minted.token })}
                clusterName={clusterName}
              />
            </>
          )}
        </div>

        <div className="flex items-center gap-3 border-t border-slate-200 pt-5 dark:border-slate-800">
          <Button onClick={onClose}>I’ve saved the token — close</Button>
          <p className="text-xs text-slate-500 dark:text-slate-400">Closing forgets the token; the manifest includes it too.</p>
        </div>
      </div>
    </section>
  );
}

function ManifestBlock({ text, clusterName }: { text: string; clusterName: string }) {
  const fileName = manifestFileName(clusterName);
  return (
    <CodeBlock
      id="agent-manifest"
      title="Kubernetes manifest"
      copyLabel="Copy manifest"
      text={text}
      actions={
        <Button variant="secondary" onClick={() => downloadText(fileName, text, "application/yaml")}>
          Download {fileName}
        </Button>
      }
    />
  );
}
