import type { ReactNode } from "react";
import { WIZARD_STEPS, type WizardStepKey, type WizardStepState } from "./wizard-steps";

const MARK: Record<WizardStepState, { className: string; word: string }> = {
  done: { className: "bg-emerald-700 text-white dark:bg-emerald-500 dark:text-emerald-950", word: "done" },
  forced: {
    className: "bg-amber-400 text-amber-950 dark:bg-amber-400 dark:text-amber-950",
    word: "done, wait skipped with a reason",
  },
  current: {
    className: "bg-sky-700 text-white ring-4 ring-sky-100 dark:bg-sky-500 dark:text-sky-950 dark:ring-sky-950",
    word: "current step",
  },
  upcoming: {
    className: "border border-slate-300 bg-white text-slate-500 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-400",
    word: "not yet",
  },
  failed: { className: "bg-rose-600 text-white dark:bg-rose-400 dark:text-rose-950", word: "failed" },
};

function StepMark({ index, state }: { index: number; state: WizardStepState }) {
  const symbol = state === "done" ? "✓" : state === "forced" ? "!" : state === "failed" ? "✕" : String(index + 1);
  return (
    <span
      aria-hidden
      className={`relative z-10 flex h-8 w-8 shrink-0 items-center justify-center rounded-full text-sm font-semibold tabular-nums ${MARK[state].className}`}
    >
      {symbol}
    </span>
  );
}

/**
 * The five wizard steps top to bottom, the current one highlighted. `render` supplies each
 * step's body (what it waits for, its chart, its buttons, or a summary once done).
 */
export function DeregistrationStepper({
  states,
  render,
}: {
  states: Record<WizardStepKey, WizardStepState>;
  render: (key: WizardStepKey, state: WizardStepState) => ReactNode;
}) {
  return (
    <ol aria-label="Deregistration steps" className="relative">
      {WIZARD_STEPS.map((step, i) => {
        const state = states[step.key];
        const last = i === WIZARD_STEPS.length - 1;
        const body = render(step.key, state);
        const active = state === "current" || state === "failed";
        return (
          <li
            key={step.key}
            data-step={step.key}
            data-state={state}
            aria-current={state === "current" ? "step" : undefined}
            className="relative flex gap-4 pb-6 last:pb-0"
          >
            {!last && (
              <span
                aria-hidden
                className={`absolute top-8 bottom-0 left-4 w-px -translate-x-1/2 ${
                  state === "done" || state === "forced" ? "bg-emerald-300 dark:bg-emerald-800" : "bg-slate-200 dark:bg-slate-800"
                }`}
              />
            )}
            <StepMark index={i} state={state} />
            <div
              className={`min-w-0 flex-1 rounded-lg ${
                active
                  ? `border bg-white p-5 shadow-sm dark:bg-slate-900 ${
                      state === "failed" ? "border-rose-300 dark:border-rose-900" : "border-sky-300 dark:border-sky-800"
                    }`
                  : "pt-1"
              }`}
            >
              <h2 className={`text-sm font-semibold ${state === "upcoming" ? "text-slate-500 dark:text-slate-400" : ""}`}>
                <span className="sr-only">Step {i + 1}: </span>
                {step.title}
                <span className="sr-only"> ({MARK[state].word})</span>
              </h2>
              <p className="mt-0.5 text-sm text-slate-600 dark:text-slate-400">{step.description}</p>
              {body && <div className="mt-3">{body}</div>}
            </div>
          </li>
        );
      })}
    </ol>
  );
}
