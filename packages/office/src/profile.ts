import { createHash } from "node:crypto";
import { copyFile, mkdir, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { profileTemplate } from "./assets.js";

/**
 * A fresh LibreOffice profile holding only our registrymodifications.xcu (macros off, links never
 * updated, no recalculation on load, a dead proxy). Made anew at every start, so nothing a previous
 * document or a killed instance left in the profile carries over.
 */
export async function seedProfile(dir: string): Promise<string> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(join(dir, "user"), { recursive: true });
  await copyFile(profileTemplate, join(dir, "user", "registrymodifications.xcu"));
  return pathToFileURL(dir).href;
}

// LibreOffice's pipes are UNIX sockets at a fixed place (osl/unx/pipe.cxx), whatever TMPDIR says.
const pipeDir = "/tmp";

/**
 * Removes the sockets a killed LibreOffice leaves in /tmp: `OSL_PIPE_<uid>_<name>` for our UNO pipe and
 * `OSL_PIPE_<uid>_SingleOfficeIPC_<hash>` for its single-instance pipe, whose hash is the MD5 of the
 * profile URL in UTF-16 with each byte in hex without leading zeros (desktop/source/app/officeipcthread.cxx).
 */
export async function removeLeftoverPipes(pipeName: string, profileUrl: string): Promise<void> {
  const md5 = createHash("md5").update(Buffer.from(profileUrl, "utf16le")).digest();
  const ipc = `_SingleOfficeIPC_${Array.from(md5, (byte) => byte.toString(16)).join("")}`;
  const entries = await readdir(pipeDir);
  const ours = entries.filter(
    (entry) => entry.startsWith("OSL_PIPE_") && (entry.endsWith(`_${pipeName}`) || entry.endsWith(ipc)),
  );
  await Promise.all(ours.map((entry) => rm(join(pipeDir, entry), { force: true })));
}
