/** "a, b, c and 4 more" */
export function listSome(items: readonly string[], shown = 5): string {
  const head = items.slice(0, shown).join(", ");
  return items.length > shown ? `${head} and ${items.length - shown} more` : head;
}
