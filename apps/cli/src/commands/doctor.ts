import { spawnSync } from "node:child_process";
import { doctor } from "@octavo/engines";
import { ocrDoctor } from "@octavo/ocr";
import { printJson } from "../output.js";

function probe(command: string, args: string[]): string | undefined {
  const result = spawnSync(command, args, { encoding: "utf8", timeout: 10_000 });
  if (result.error || result.status !== 0) return undefined;
  return result.stdout.trim().split("\n")[0];
}

/** Every program and library octavo's engines and defaults use: found or missing, with its version. */
export async function doctorCommand(): Promise<boolean> {
  const engines = await doctor();
  const ocr = await ocrDoctor();
  const redis = probe("redis-server", ["--version"]);
  const soffice = probe("soffice", ["--version"]);
  // Debian's python3 (the one python3-uno belongs to), not whatever python3 comes first in PATH.
  const uno = probe("/usr/bin/python3", ["-c", "import uno; print('ok')"]);
  const chromium = probe("chromium", ["--version"]);
  const report = [
    { name: "node", found: true, version: process.versions.node, path: process.execPath, usedFor: "runtime" },
    {
      name: "redis-server",
      found: redis !== undefined,
      ...(redis ? { version: /v=(\S+)/.exec(redis)?.[1] ?? redis } : {}),
      usedFor: "the supervised queue when OCTAVO_REDIS_URL is unset",
    },
    ...engines,
    {
      name: "libreoffice",
      found: soffice !== undefined,
      ...(soffice ? { version: /LibreOffice ([\d.]+)/.exec(soffice)?.[1] ?? soffice } : {}),
      usedFor: "Word, PowerPoint and Excel to PDF (warm listeners)",
    },
    { name: "python3-uno", found: uno === "ok", usedFor: "driving the LibreOffice listeners" },
    {
      name: "chromium",
      found: chromium !== undefined,
      ...(chromium ? { version: /([\d.]+)/.exec(chromium)?.[1] ?? chromium } : {}),
      usedFor: "HTML and URL to PDF (puppeteer-core)",
    },
    ...ocr,
  ];
  printJson(report);
  return report.every((entry) => entry.found || ("optional" in entry && entry.optional === true));
}
