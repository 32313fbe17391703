// The pages' only script, embedded as a string (like the stylesheet) and served at /assets/pages.js.
//
// Progressive enhancement: a copy button is rendered `hidden` and only this script shows it, so without
// JavaScript the value stays plain selectable text and nothing on the page is broken. Pages that load the
// script send a CSP allowing `script-src 'self'` (SCRIPT_CSP); every other page allows no script at all.
export const PAGES_SCRIPT_PATH = "/assets/pages.js";

export const SCRIPT_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'";

export const PAGES_SCRIPT = `"use strict";
for (const button of document.querySelectorAll("button[data-copy]")) {
  const target = document.getElementById(button.dataset.copy);
  const status = document.getElementById(button.dataset.status);
  if (!target) continue;
  button.hidden = false;
  button.addEventListener("click", async () => {
    const text = target.textContent.trim();
    try {
      await navigator.clipboard.writeText(text);
      if (status) status.textContent = "Copied to the clipboard.";
    } catch {
      const range = document.createRange();
      range.selectNodeContents(target);
      const selection = getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      if (status) status.textContent = "Selected: press Ctrl+C (or Cmd+C) to copy.";
    }
  });
}
`;
