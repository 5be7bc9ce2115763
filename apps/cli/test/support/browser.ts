import { mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, launch, type Page } from "puppeteer-core";

/** Screenshots of the browser tests (gitignored); the README's come from here. */
export const screenshotDir = join(
  dirname(fileURLToPath(import.meta.url)),
  "..",
  "..",
  "test-artifacts",
  "dashboard",
);

/** Debian's Chromium, headless, as a customer's browser (no download, no proxy). */
export async function launchBrowser(): Promise<Browser> {
  await mkdir(screenshotDir, { recursive: true });
  return launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    pipe: true,
    // Chromium refuses its sandbox as root, which CI runs as.
    args: [...(process.getuid?.() === 0 ? ["--no-sandbox"] : []), "--disable-gpu", "--no-first-run"],
  });
}

export async function screenshot(page: Page, name: string): Promise<string> {
  const path = join(screenshotDir, `${name}.png`);
  await page.screenshot({ path: path as `${string}.png`, fullPage: true });
  return path;
}

/** Fills a form's fields (by input name), submits it with its own button and waits for the next page. */
export async function submitForm(page: Page, action: string, fields: Record<string, string> = {}) {
  const form = `form[action="${action}"]`;
  for (const [name, value] of Object.entries(fields)) {
    await page.locator(`${form} input[name="${name}"]`).fill(value);
  }
  await Promise.all([page.waitForNavigation(), page.click(`${form} button[type=submit]`)]);
}
