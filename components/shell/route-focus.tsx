"use client";

import { useEffect, useRef } from "react";
import { usePathname } from "next/navigation";
import { MAIN_CONTENT_ID } from "@/components/ui/skip-link";

/** How long a new page may take to put its heading on screen before focus is left where it is. */
const HEADING_WAIT_MS = 5_000;

/**
 * After a client-side navigation, focus moves to the new page's main heading, so a screen reader
 * announces the page and the next Tab starts in its content (a full load starts at the document,
 * as usual: nothing happens on the first render). Only a new path counts: changing a filter in the
 * query string keeps focus on the control that changed it. The heading may come after a loading
 * state, so it is followed for a few seconds, until the user moves focus themselves.
 */
export function RouteFocus() {
  const pathname = usePathname();
  const previous = useRef(pathname);
  useEffect(() => {
    if (previous.current === pathname) return;
    previous.current = pathname;
    const main = document.getElementById(MAIN_CONTENT_ID);
    if (!main) return;
    // Focus was on the link or control that navigated; anything else focused since is the user's choice.
    const opener = document.activeElement;
    let ours: HTMLElement | null = null;
    const focusHeading = () => {
      const active = document.activeElement;
      const free = !active || active === document.body || active === opener || active === ours;
      if (!free) return stop();
      const h1 = main.querySelector<HTMLElement>("h1");
      // The loading state's heading is replaced by the page's: focus follows to the new one.
      if (!h1 || h1 === active) return;
      if (!h1.hasAttribute("tabindex")) h1.tabIndex = -1;
      h1.focus({ preventScroll: true });
      ours = h1;
    };
    const observer = new MutationObserver(focusHeading);
    const timer = window.setTimeout(() => stop(), HEADING_WAIT_MS);
    function stop() {
      observer.disconnect();
      window.clearTimeout(timer);
    }
    observer.observe(main, { childList: true, subtree: true });
    focusHeading();
    return stop;
  }, [pathname]);
  return null;
}
