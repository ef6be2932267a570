"use client";

import { useState } from "react";
import {
  agentCommand,
  agentManifest,
  defaultAgentUrl,
  labelsToSend,
  manifestBlockers,
  manifestFileName,
  proxyUrlProblem,
  serverAddressProblem,
} from "@/lib/domain/agent-manifest";
import { EMPTY_POD_OPTIONS, parseAgentPodOptions, type AgentPodOptions } from "@/lib/domain/agent-pod-options";
import { DNS_LABEL, labelValueProblem } from "@/lib/domain/labels";
import { useFleetFacts, type MintedToken } from "@/lib/client/tokens";
import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { inputClass } from "@/components/ui/field";
import { Skeleton } from "@/components/ui/skeleton";
import { ErrorState } from "@/components/ui/states";
import { AgentAdvancedOptions, AgentOptionField } from "./agent-advanced-options";
import { EMPTY_OPS_INPUT, MonitoringOptions, parseOpsInput, ProxyCaField } from "./agent-ops-options";
import { EnrollmentNeeds } from "./enrollment-needs";
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
 *
 * The manifest's Copy and Download stay disabled, with the reason beside them, until it would
 * work: a valid name (typed, when the token may register more than one cluster, so no two
 * clusters share a suggested one), every required label, and a server address a pod can reach.
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
  // A token for several clusters suggests no name: each cluster needs its own, typed.
  const nameRequired = !boundCluster && minted.maxClusters > 1;
  const [clusterName, setClusterName] = useState(() => boundCluster ?? (nameRequired ? "" : suggestClusterName(minted.name)));
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
  const labelProblem = (key: string) => {
    const value = valueOf(key).trim();
    return value === "" ? `Every cluster needs a ${key} label.` : labelValueProblem(value);
  };

  const nameError =
    clusterName === ""
      ? nameRequired
        ? `Name this cluster: the token may register up to ${minted.maxClusters.toLocaleString("en-US")} clusters, each under its own name.`
        : "Name the cluster."
      : DNS_LABEL.test(clusterName)
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
  // The server address starts at the first AGENT_HOSTNAMES entry a pod can reach, and is editable.
  const [serverEdit, setServerEdit] = useState<string | null>(null);
  const serverAddress = serverEdit ?? (fleet.data ? defaultAgentUrl(fleet.data.agentUrls, fleet.data.agentUrl) : "");
  const serverProblem = serverAddressProblem(serverAddress);
  const [nodeActions, setNodeActions] = useState(false);
  const [httpsProxy, setHttpsProxy] = useState("");
  const [noProxy, setNoProxy] = useState("");
  const proxyProblem = httpsProxy.trim() ? proxyUrlProblem(httpsProxy) : null;
  const [opsInput, setOpsInput] = useState(EMPTY_OPS_INPUT);
  const ops = parseOpsInput(opsInput);
  const optionProblems = [
    ...Object.keys(parsedOptions.problems).map(
      (k) =>
        ({
          apiServerUrl: "API server URL",
          priorityClassName: "priority class",
          imagePullSecrets: "image pull secret",
          tolerations: "toleration",
        })[k] ?? k,
    ),
    ...(proxyProblem ? ["HTTPS proxy"] : []),
    ...(ops.proxyCaProblem ? ["proxy CA bundle"] : []),
  ];
  const labelProblems = suggested.filter((s) => labelProblem(s.key)).map((s) => s.key);
  const manifestBlocked = manifestBlockers({ nameProblem: nameError, labelProblems, serverProblem, optionProblems });
  // The command runs on a host (loopback is fine there): it waits for the name and labels only.
  const commandBlocked = manifestBlockers({ nameProblem: nameError, labelProblems, serverProblem: null, optionProblems: [] });
  const reason = (blocked: string[]) => (blocked.length ? `Needs ${blocked.join(", ")}.` : null);
  const commandServer =
    serverAddress.trim() && !serverAddressProblem(serverAddress) ? serverAddress.trim() : (fleet.data?.agentUrl ?? "");

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
              : `register ${minted.maxClusters === 1 ? "a cluster" : `up to ${minted.maxClusters.toLocaleString("en-US")} clusters`}`}{" "}
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
              <div className="grid gap-4 sm:grid-cols-3">
                <div className="space-y-1.5">
                  <label htmlFor="agent-cluster-name" className="block text-sm font-medium">
                    Cluster name
                  </label>
                  <input
                    id="agent-cluster-name"
                    className={`${inputClass} font-mono`}
                    value={clusterName}
                    readOnly={!!boundCluster}
                    required
                    placeholder={nameRequired ? "prod-eu-west-1" : undefined}
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
                  const problem = labelProblem(s.key);
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
                          required
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
              <fieldset className="space-y-4 rounded-md border border-slate-200 p-3 dark:border-slate-800">
                <legend className="px-1 text-sm font-semibold">Connection</legend>
                <div className="grid gap-4 sm:grid-cols-2">
                  <div className="space-y-1.5">
                    <label htmlFor="agent-server-address" className="block text-sm font-medium">
                      Server address
                    </label>
                    <input
                      id="agent-server-address"
                      className={`${inputClass} font-mono`}
                      value={serverAddress}
                      required
                      spellCheck={false}
                      aria-invalid={serverProblem ? true : undefined}
                      aria-describedby={`agent-server-address-hint${serverProblem ? " agent-server-address-error" : ""}`}
                      onChange={(e) => setServerEdit(e.target.value)}
                    />
                    <p id="agent-server-address-hint" className="text-xs text-slate-500 dark:text-slate-400">
                      Where the agent reaches this server’s agent port from inside the cluster
                      {fleet.data.agentUrls.length > 1 ? ` (AGENT_HOSTNAMES offers ${fleet.data.agentUrls.join(", ")})` : ""}.
                    </p>
                    <FieldError id="agent-server-address-error" message={serverProblem} />
                  </div>
                  <AgentOptionField
                    field="apiServerUrl"
                    value={advanced}
                    problems={parsedOptions.problems}
                    onChange={setAdvanced}
                  />
                  <div className="space-y-1.5">
                    <label htmlFor="agent-https-proxy" className="block text-sm font-medium">
                      HTTPS proxy
                    </label>
                    <input
                      id="agent-https-proxy"
                      className={`${inputClass} font-mono`}
                      placeholder="http://proxy.internal:3128"
                      value={httpsProxy}
                      spellCheck={false}
                      aria-invalid={proxyProblem ? true : undefined}
                      aria-describedby={`agent-https-proxy-hint${proxyProblem ? " agent-https-proxy-error" : ""}`}
                      onChange={(e) => setHttpsProxy(e.target.value)}
                    />
                    <p id="agent-https-proxy-hint" className="text-xs text-slate-500 dark:text-slate-400">
                      Only if the cluster reaches this server through an egress proxy (HTTPS_PROXY in the pod).
                    </p>
                    <FieldError id="agent-https-proxy-error" message={proxyProblem} />
                  </div>
                  <div className="space-y-1.5">
                    <label htmlFor="agent-no-proxy" className="block text-sm font-medium">
                      No proxy for
                    </label>
                    <input
                      id="agent-no-proxy"
                      className={`${inputClass} font-mono`}
                      placeholder="10.0.0.0/8,.svc,.cluster.local"
                      value={noProxy}
                      spellCheck={false}
                      aria-describedby="agent-no-proxy-hint"
                      onChange={(e) => setNoProxy(e.target.value)}
                    />
                    <p id="agent-no-proxy-hint" className="text-xs text-slate-500 dark:text-slate-400">
                      Hosts and networks reached directly, comma-separated (NO_PROXY); the Kubernetes API usually is.
                    </p>
                  </div>
                  <ProxyCaField value={opsInput} onChange={setOpsInput} problem={ops.proxyCaProblem} />
                </div>
                <div className="flex items-start gap-2">
                  <input
                    id="agent-node-actions"
                    type="checkbox"
                    className="mt-0.5 h-4 w-4"
                    checked={nodeActions}
                    aria-describedby="agent-node-actions-hint"
                    onChange={(e) => setNodeActions(e.target.checked)}
                  />
                  <div>
                    <label htmlFor="agent-node-actions" className="text-sm font-medium">
                      Allow node actions
                    </label>
                    <p id="agent-node-actions-hint" className="text-xs text-slate-500 dark:text-slate-400">
                      Lets operators drain and retire node pools from the console: adds a ClusterRole that may cordon nodes and
                      evict pods, and --allow-node-actions. Off, the agent only reads.
                    </p>
                  </div>
                </div>
              </fieldset>
              <MonitoringOptions value={opsInput} onChange={setOpsInput} />
              <AgentAdvancedOptions
                value={advanced}
                problems={parsedOptions.problems}
                onChange={setAdvanced}
                omit={["apiServerUrl"]}
              />
              <CodeBlock
                id="agent-command"
                title="Agent command"
                wrap
                maxHeight="max-h-40"
                blockedReason={reason(commandBlocked)}
                text={agentCommand({
                  ...fleet.data,
                  agentUrl: commandServer,
                  clusterName,
                  labels,
                  apiServerUrl: podOptions.apiServerUrl,
                })}
              />
              <p className="-mt-2 text-xs text-slate-500 dark:text-slate-400">
                Run it from a checkout of this project with the token saved as <code className="font-mono">token.txt</code>; the
                agent deletes the file once the cluster is registered.
              </p>
              <ManifestBlock
                text={agentManifest({
                  ...fleet.data,
                  ...podOptions,
                  agentUrl: serverAddress.trim(),
                  clusterName,
                  labels,
                  token: minted.token,
                  allowNodeActions: nodeActions,
                  ...(httpsProxy.trim() && !proxyProblem ? { httpsProxy: httpsProxy.trim() } : {}),
                  ...(noProxy.trim() ? { noProxy: noProxy.replace(/\s+/g, "") } : {}),
                  ...ops.options,
                })}
                clusterName={clusterName}
                blockedReason={reason(manifestBlocked)}
              />
              {!boundCluster && <EnrollmentNeeds requiredLabels={fleet.data.requiredLabels} />}
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

function ManifestBlock({
  text,
  clusterName,
  blockedReason,
}: {
  text: string;
  clusterName: string;
  blockedReason: string | null;
}) {
  const fileName = manifestFileName(clusterName || "cluster");
  return (
    <CodeBlock
      id="agent-manifest"
      title="Kubernetes manifest"
      copyLabel="Copy manifest"
      text={text}
      blockedReason={blockedReason}
      actions={
        <Button
          variant="secondary"
          disabled={!!blockedReason}
          aria-describedby={blockedReason ? "agent-manifest-blocked" : undefined}
          className={blockedReason ? "opacity-60" : ""}
          onClick={() => downloadText(fileName, text, "application/yaml")}
        >
          Download {fileName}
        </Button>
      }
    />
  );
}
