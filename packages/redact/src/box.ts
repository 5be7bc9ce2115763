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
