// A child process in its own process group, killed whole (e.g. soffice.bin with oosplash) after a timeout.
import { spawn } from "node:child_process";

/** Resolves to { code, signal, stdout, stderr, timedOut }; never rejects. */
export function runInGroup(command, args, timeoutMs) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch (error) {
        // ESRCH: the group ended between the timer firing and the kill; anything else is a real fault.
        if (error.code !== "ESRCH") throw error;
      }
    }, timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      resolve({ code: null, signal: null, stdout, stderr: `${stderr}${error.message}`, timedOut });
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, timedOut });
    });
  });
}
