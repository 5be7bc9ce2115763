/** A whole number as the failure messages print it: 1,500,000. */
export function count(value: number): string {
  return value.toLocaleString("en-US");
}
