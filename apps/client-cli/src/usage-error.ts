/** The command line itself is wrong (a flag, a missing file or key): exit code 2, nothing is sent. */
export class UsageError extends Error {
  override name = "UsageError";
}
