const inWords = (unit: "second" | "minute" | "hour") =>
  new Intl.NumberFormat("en", { style: "unit", unit, unitDisplay: "long", maximumFractionDigits: 1 });
const formats = { second: inWords("second"), minute: inWords("minute"), hour: inWords("hour") };

/**
 * A duration for messages, in the unit a person would use, singular or plural as the number needs
 * ("1 minute", "90 seconds", "2.5 minutes", "2 hours"): whole hours or minutes in those, under two
 * minutes in seconds, else in minutes.
 */
export function durationInWords(seconds: number): string {
  if (seconds >= 3600 && seconds % 3600 === 0) return formats.hour.format(seconds / 3600);
  if (seconds >= 60 && seconds % 60 === 0) return formats.minute.format(seconds / 60);
  if (seconds < 120) return formats.second.format(seconds);
  return formats.minute.format(seconds / 60);
}
