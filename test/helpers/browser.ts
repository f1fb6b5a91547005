/**
 * Debian's headless Chromium for browser tests, through playwright-core (which never downloads a
 * browser of its own). The fake media flags give `getUserMedia` a generated microphone without a
 * prompt; `microphone: "denied"` launches without them, so the permission request is refused as a
 * visitor refusing it would be. Under `CI=true` a missing Chromium fails the suite; elsewhere it
 * is skipped with a notice, as a missing database is.
 */
import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

const BASE_FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
  // Host candidates by address, not mDNS names a Node peer cannot resolve.
  "--disable-features=WebRtcHideLocalIpsWithMdns",
  // Loopback host candidates too, for a host whose only interface is loopback (the WebRTC
  // stand-in answers on 127.0.0.1).
  "--allow-loopback-in-peer-connection",
  "--autoplay-policy=no-user-gesture-required",
];

const FAKE_MICROPHONE = ["--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream"];

export interface LaunchOptions {
  /**
   * "granted" (the default): a fake microphone, allowed; "denied": the request is refused;
   * "absent": allowed, but there is no microphone to give.
   */
  microphone?: "granted" | "denied" | "absent";
}

export function chromiumAvailable(): boolean {
  return existsSync(CHROMIUM_PATH);
}

export async function launchChromium(options: LaunchOptions = {}): Promise<Browser> {
  const microphone = {
    granted: FAKE_MICROPHONE,
    denied: ["--use-fake-device-for-media-stream", "--deny-permission-prompts"],
    absent: ["--use-fake-ui-for-media-stream"],
  }[options.microphone ?? "granted"];
  const args = [...BASE_FLAGS, ...microphone];
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args });
}

/** For a suite's `before`: skips it (or fails it under CI) when Chromium is not installed. */
export function requireChromium(context: Mocha.Context): void {
  if (chromiumAvailable()) return;
  const message = `Chromium not found at ${CHROMIUM_PATH} (apt-get install chromium)`;
  if (process.env.CI === "true") throw new Error(message);
  // eslint-disable-next-line no-console -- the notice must be loud in the test output
  console.warn(`\n  !! ${message}: browser tests skipped\n`);
  context.skip();
}
