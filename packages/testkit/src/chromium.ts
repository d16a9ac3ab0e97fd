/**
 * How the browser tests start Debian's Chromium (`CHROMIUM_PATH` overrides the path): headless,
 * no sandbox (CI runs as root), and none of the background traffic a test must not depend on.
 * Pass to playwright-core's `chromium.launch`.
 *
 * @example
 * const browser = await chromium.launch(chromiumLaunchOptions());
 */
export function chromiumLaunchOptions(): { executablePath: string; args: string[] } {
  return {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
    ],
  };
}
