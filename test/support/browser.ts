// Debian's Chromium, driven headless by playwright-core: .ci/run installs it, since no browser can be
// downloaded here (`npx playwright install` cannot reach its hosts).
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Hang guards, not speed checks: how long one step in the browser (a page load, a wait for an element) and
 * one browser test may take before they are taken for hung. Chromium rendering the reference is slow on a
 * machine busy with other work, and Playwright's own default for a step is 30 s.
 */
export const BROWSER_STEP_TIMEOUT = 120_000;
export const BROWSER_TEST_TIMEOUT = 300_000;

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `No Chromium at ${CHROMIUM_PATH}: run \`apt-get install -y chromium\` (or set CHROMIUM_PATH)`,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
}
