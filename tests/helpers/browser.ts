// Headless Debian Chromium for the e2e tests: whether it is installed, and one way to launch it.
import { type Browser, chromium } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";

export const haveChromium = (() => {
  try {
    return Deno.statSync(CHROMIUM).isFile;
  } catch {
    return false;
  }
})();

/** Says once, per test file, why its browser tests are ignored. */
export function warnIfMissing(file: string): void {
  if (!haveChromium) console.warn(`${file} skipped: ${CHROMIUM} is missing (apt-get install chromium)`);
}

/** The flags this closed network needs: no background connections that would be refused at every start. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}
