/** A rectangle on the page as displayed (MuPDF's device space, y down): [x0, y0, x1, y1]. */
export type Box = [number, number, number, number];

/** Whether two boxes share some area (touching edges do not count). */
export function overlaps(a: readonly number[], b: Box): boolean {
  const [ax0 = 0, ay0 = 0, ax1 = 0, ay1 = 0] = a;
  return ax0 < b[2] && b[0] < ax1 && ay0 < b[3] && b[1] < ay1;
}

export function centreOf(box: Box): [number, number] {
  return [(box[0] + box[2]) / 2, (box[1] + box[3]) / 2];
}

/** Whether the point lies in the box, edges included. */
export function contains(box: Box, [x, y]: [number, number]): boolean {
  return box[0] <= x && x <= box[2] && box[1] <= y && y <= box[3];
}

/** The smallest box holding both. */
export function union(a: Box, b: Box): Box {
  return [Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[2], b[2]), Math.max(a[3], b[3])];
}

/** The box around a quad ([x, y] of its four corners in turn), as MuPDF gives a character's. */
export function boxOfQuad(quad: readonly number[]): Box {
  const [xs, ys] = [
    [0, 2, 4, 6],
    [1, 3, 5, 7],
  ].map((at) => at.map((index) => quad[index] ?? 0)) as [number[], number[]];
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}
