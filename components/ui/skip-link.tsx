/** The id of the console's <main>: the skip link's target, and where focus goes when its opener is gone. */
export const MAIN_CONTENT_ID = "main-content";

/** "Skip to content": the first tab stop, visible only while focused. */
export function SkipLink() {
  return (
    <a
      href={`#${MAIN_CONTENT_ID}`}
      className="sr-only focus:not-sr-only focus:fixed focus:top-3 focus:left-3 focus:z-50 focus:rounded-md focus:bg-white focus:px-4 focus:py-2 focus:text-sm focus:font-medium focus:text-sky-800 focus:shadow-lg dark:focus:bg-slate-900 dark:focus:text-sky-200"
    >
      Skip to content
    </a>
  );
}
