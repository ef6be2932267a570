import Link from "next/link";
import { EnrollmentNeeds } from "@/components/tokens/enrollment-needs";

/**
 * The first run: nothing registered yet, the one next step that changes that, and what a cluster
 * needs beyond registering to count as enrolled.
 */
export function FleetEmptyState({ canMint }: { canMint: boolean }) {
  return (
    <div className="flex flex-col items-center rounded-lg border border-dashed border-slate-300 bg-white px-6 py-16 text-center dark:border-slate-700 dark:bg-slate-900">
      <span
        aria-hidden
        className="flex h-12 w-12 items-center justify-center rounded-full bg-sky-50 text-2xl text-sky-700 dark:bg-sky-950 dark:text-sky-400"
      >
        ⎈
      </span>
      <h2 className="mt-4 text-base font-semibold">No clusters in the fleet yet</h2>
      <p className="mt-2 max-w-lg text-sm text-slate-600 dark:text-slate-400">
        A cluster joins when its agent presents a registration token. Mint a token, run the agent with it in the cluster, and the
        cluster appears here within seconds — this page updates by itself.
      </p>
      {canMint ? (
        <Link
          href="/tokens"
          className="mt-6 inline-flex h-9 items-center rounded-md bg-sky-700 px-3.5 text-sm font-medium text-white hover:bg-sky-800"
        >
          Mint a registration token
        </Link>
      ) : (
        <p className="mt-6 text-sm text-slate-600 dark:text-slate-400">
          Ask an operator to mint a registration token on the{" "}
          <Link href="/tokens" className="font-medium text-sky-700 underline dark:text-sky-400">
            Tokens
          </Link>{" "}
          page.
        </p>
      )}
      <div className="mt-8 w-full max-w-lg border-t border-slate-200 pt-6 dark:border-slate-800">
        <EnrollmentNeeds />
      </div>
    </div>
  );
}
