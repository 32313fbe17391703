// The pages' only script, embedded as a string (like the stylesheet) and served at /assets/pages.js.
//
// Progressive enhancement: a copy button is rendered `hidden` and only this script shows it, so without
// JavaScript the value stays plain selectable text and nothing on the page is broken. Pages that load the
// script send a CSP allowing `script-src 'self'` (SCRIPT_CSP); every other page allows no script at all.
export const PAGES_SCRIPT_PATH = "/assets/pages.js";

export const SCRIPT_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'";

/** The waiting page's CSP: the script, and requests to this origin (it asks whether the wait is over). */
export const POLLING_CSP = SCRIPT_CSP + "; connect-src 'self'";

export const PAGES_SCRIPT = `"use strict";
// The waiting page (routes/oauth_approval_pages.ts): ask every few seconds whether the wait is over, and reload
// when it is (the reload shows what comes next). Without JavaScript the page's "Check again" link does it.
for (const waiting of document.querySelectorAll("[data-poll]")) {
  const url = waiting.dataset.poll;
  const every = Number(waiting.dataset.every || "3") * 1000;
  const ask = async () => {
    try {
      const answer = await fetch(url, { headers: { accept: "application/json" }, credentials: "same-origin" });
      const body = answer.ok ? await answer.json() : { state: "changed" };
      if (body.state !== "pending") return location.reload();
    } catch {
      // offline for a moment: ask again later
    }
    setTimeout(ask, every);
  };
  setTimeout(ask, every);
}
// Copy buttons: the words of the status come from the button (data-copied, data-selected: the page's language).
for (const button of document.querySelectorAll("button[data-copy]")) {
  const target = document.getElementById(button.dataset.copy);
  const status = document.getElementById(button.dataset.status);
  if (!target) continue;
  button.hidden = false;
  button.addEventListener("click", async () => {
    const text = target.textContent.trim();
    try {
      await navigator.clipboard.writeText(text);
      if (status) status.textContent = button.dataset.copied || "Copied to the clipboard.";
    } catch {
      const range = document.createRange();
      range.selectNodeContents(target);
      const selection = getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      if (status) status.textContent = button.dataset.selected || "Selected: press Ctrl+C (or Cmd+C) to copy.";
    }
  });
}
`;
