import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type Browser, launch } from "puppeteer-core";

export const defaultExecutablePath = "/usr/bin/chromium";

/**
 * Flags on top of puppeteer's defaults (which already disable sync, default apps, crash reporting,
 * first-run UI and background networking). `proxyUrl` is the refuse-everything proxy: traffic that
 * belongs to no job (Chromium's update, time and account checks still go out despite the flags)
 * never leaves; each job's context gets its own policy proxy instead.
 */
export function chromiumArgs(proxyUrl: string): string[] {
  const args = [
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-domain-reliability",
    "--disable-sync",
    "--no-first-run",
    "--no-pings",
    "--disable-quic",
    "--dns-prefetch-disable",
    // WebRTC would otherwise send UDP (STUN, media) around any HTTP proxy.
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
    `--proxy-server=${proxyUrl}`,
    "--proxy-bypass-list=<-loopback>",
  ];
  // Chromium refuses to start as root with its sandbox on (it needs an unprivileged user for the
  // setuid/namespace sandbox); the container image runs octavo as a normal user, where it stays on.
  if (process.getuid?.() === 0) args.push("--no-sandbox");
  return args;
}

/**
 * A fresh profile per browser: nothing (cookies, cache, service workers) survives a restart. Network
 * prediction (DNS prefetch, preconnect) is switched off in its preferences, so page hints do not make
 * Chromium resolve names outside the proxy.
 */
async function freshProfile(userDataDir: string): Promise<void> {
  await mkdir(join(userDataDir, "Default"), { recursive: true, mode: 0o700 });
  const preferences = { net: { network_prediction_options: 2 }, dns_prefetching: { enabled: false } };
  await writeFile(join(userDataDir, "Default", "Preferences"), JSON.stringify(preferences));
}

export async function launchChromium(options: {
  executablePath: string;
  userDataDir: string;
  proxyUrl: string;
  protocolTimeoutMs: number;
}): Promise<Browser> {
  await freshProfile(options.userDataDir);
  return launch({
    executablePath: options.executablePath,
    userDataDir: options.userDataDir,
    headless: true,
    pipe: true,
    args: chromiumArgs(options.proxyUrl),
    protocolTimeout: options.protocolTimeoutMs,
    // The worker owns signals and shutdown; the renderer closes the browser in close().
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
  });
}
