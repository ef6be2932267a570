"use client";

import { useId, useState, type FormEvent } from "react";
import type { ClusterDetail } from "@/lib/client/clusters";
import { ApiRequestError } from "@/lib/client/fetch-json";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { Dialog } from "@/components/ui/dialog";
import { inputClass } from "@/components/ui/field";
import { FormActions } from "@/components/ui/form-actions";
import { useNow } from "@/components/ui/relative-time";
import { DefinitionList, Mono } from "./definition-list";
import { daysUntil, shortHex } from "@/components/ui/format";
import { LocalTime } from "@/components/ui/local-time";

/** The agent's client certificate: serial, validity and, for operators, revocation. */
export function CertificateCard({
  certificate,
  canRevoke,
  onRevoke,
}: {
  certificate: ClusterDetail["certificate"];
  canRevoke: boolean;
  onRevoke: (reason: string) => Promise<unknown>;
}) {
  const now = useNow();
  const [confirming, setConfirming] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  if (!certificate) {
    return (
      <Card title="Certificate">
        <p className="text-sm text-slate-600 dark:text-slate-400">No certificate issued: the cluster has not registered.</p>
      </Card>
    );
  }
  const days = daysUntil(certificate.notAfter, now);
  const expired = Date.parse(certificate.notAfter) <= now;
  return (
    <Card
      title="Certificate"
      action={
        certificate.revoked ? (
          <Badge tone="red">Revoked</Badge>
        ) : expired ? (
          <Badge tone="red">Expired</Badge>
        ) : days < 7 ? (
          <Badge tone="amber">Expires soon</Badge>
        ) : (
          <Badge tone="green">Valid</Badge>
        )
      }
    >
      <DefinitionList
        termWidth="5.5rem"
        items={[
          [
            "Serial",
            <Mono key="s" title={certificate.serial}>
              {shortHex(certificate.serial, 20)}
            </Mono>,
          ],
          [
            "Fingerprint",
            <Mono key="f" title={certificate.fingerprint}>
              {shortHex(certificate.fingerprint, 16)}
            </Mono>,
          ],
          ["Valid from", <LocalTime key="b" iso={certificate.notBefore} format="datetime" />],
          [
            "Expires",
            <span key="e">
              <LocalTime iso={certificate.notAfter} format="datetime" />
              <span
                className={`block text-xs tabular-nums ${expired || days < 2 ? "text-rose-700 dark:text-rose-400" : days < 7 ? "text-amber-700 dark:text-amber-400" : "text-slate-500 dark:text-slate-400"}`}
              >
                {expired ? "expired" : days === 0 ? "today" : `${days} day${days === 1 ? "" : "s"} left`}
              </span>
            </span>,
          ],
        ]}
      />
      {canRevoke && !certificate.revoked && (
        <div className="mt-4 border-t border-slate-200 pt-4 dark:border-slate-800">
          <Button variant="secondary" className="text-rose-700 dark:text-rose-400" onClick={() => setConfirming(true)}>
            Revoke certificate…
          </Button>
        </div>
      )}
      {done && (
        <p role="status" className="mt-3 text-sm text-emerald-700 dark:text-emerald-400">
          {done}
        </p>
      )}
      {confirming && (
        <RevokeDialog
          serial={certificate.serial}
          onClose={() => setConfirming(false)}
          onRevoke={async (reason) => {
            await onRevoke(reason);
            setConfirming(false);
            setDone("Certificate revoked. The agent can no longer connect; Re-enrol gives it a token bound to this cluster.");
          }}
        />
      )}
    </Card>
  );
}

function RevokeDialog({
  serial,
  onClose,
  onRevoke,
}: {
  serial: string;
  onClose: () => void;
  onRevoke: (reason: string) => Promise<void>;
}) {
  const id = useId();
  const [reason, setReason] = useState("");
  const [touched, setTouched] = useState(false);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const problem = reason.trim().length < 3 ? "Give a reason of at least 3 characters; it is kept in the audit log." : null;

  async function submit(e: FormEvent) {
    e.preventDefault();
    setTouched(true);
    if (problem) return;
    setPending(true);
    setError(null);
    try {
      await onRevoke(reason.trim());
    } catch (err) {
      setError(err instanceof ApiRequestError ? err.message : "The certificate could not be revoked; try again.");
      setPending(false);
    }
  }

  return (
    <Dialog
      title="Revoke this certificate?"
      onClose={onClose}
      description={
        <>
          The agent using certificate <span className="font-mono">{shortHex(serial, 16)}</span> is cut off at once and cannot
          heartbeat until it is re-enrolled with a token bound to this cluster. This cannot be undone.
        </>
      }
    >
      <form onSubmit={submit} noValidate className="space-y-4">
        <div className="space-y-1.5">
          <label htmlFor={`${id}-reason`} className="block text-sm font-medium">
            Reason
          </label>
          <textarea
            id={`${id}-reason`}
            value={reason}
            maxLength={300}
            rows={3}
            autoFocus
            onChange={(e) => setReason(e.target.value)}
            onBlur={() => setTouched(true)}
            aria-invalid={touched && problem ? true : undefined}
            aria-describedby={`${id}-hint`}
            placeholder="e.g. key material exposed in CI logs"
            className={`${inputClass} h-auto py-2`}
          />
          <p
            id={`${id}-hint`}
            className={`text-xs ${touched && problem ? "text-rose-600 dark:text-rose-400" : "text-slate-500 dark:text-slate-400"}`}
          >
            {touched && problem ? problem : "Recorded in the audit log with your name."}
          </p>
        </div>
        {error && (
          <p
            role="alert"
            className="rounded-md bg-rose-50 px-3 py-2 text-sm text-rose-700 dark:bg-rose-950/50 dark:text-rose-300"
          >
            {error}
          </p>
        )}
        <FormActions onCancel={onClose} variant="danger" pending={pending} label="Revoke certificate" pendingLabel="Revoking…" />
      </form>
    </Dialog>
  );
}
