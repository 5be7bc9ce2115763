/**
 * Whether parsed JSON nests arrays and objects more than `maxDepth` levels deep (a scalar is 0
 * levels, `{}` and `[]` are 1). Walks with its own stack, so a value nested 100,000 levels deep,
 * which JSON.parse accepts, is measured instead of overflowing the call stack as the structured
 * clone, stringify and schema validation that follow would.
 */
export function nestedDeeperThan(value: unknown, maxDepth: number): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [item, depth] = next;
    if (typeof item !== "object" || item === null) continue;
    if (depth + 1 > maxDepth) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) pending.push([child, depth + 1]);
  }
  return false;
}
