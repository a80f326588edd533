import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's chromium (`apt-get install -y chromium`), which the e2e specs drive through playwright-core. */
export const CHROMIUM = '/usr/bin/chromium';

/** Headless, and kept off the network but for the pages a spec opens (no updates, sync or pings). */
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Starts Debian's chromium for a spec (close it in `afterAll`). */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}
