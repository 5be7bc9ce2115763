/** "23 Nov 2026, 21:53 UTC": dates as a customer reads them, always in UTC so every node agrees. */
export function when(iso: string | null | undefined): string {
  if (!iso) return "never";
  return `${new Date(iso).toLocaleString("en-GB", {
    day: "numeric",
    month: "short",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    timeZone: "UTC",
  })} UTC`;
}

export function duration(ms: number | null): string {
  if (ms === null) return "—";
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}
