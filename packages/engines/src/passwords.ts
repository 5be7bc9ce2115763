import { randomBytes } from "node:crypto";
import saslprep from "@mongodb-js/saslprep";

/**
 * The password as PDF 2.0 wants it for AES-256 (R6): SASLprep-normalised, so "SªSL\u00ADprep" typed by a
 * user becomes "SaSLprep". A password SASLprep prohibits (e.g. with control characters) stays as typed.
 */
export function normalisedPassword(password: string): string {
  try {
    return saslprep(password);
  } catch {
    // Prohibited characters: conforming readers cannot normalise it either; use the bytes as given.
    return password;
  }
}

/** The forms to try when opening: normalised first, then as typed when that differs. */
export function passwordCandidates(password: string): string[] {
  return [...new Set([normalisedPassword(password), password])];
}

/** A random owner password (43 base64url characters, 256 bits) for files protected without one. */
export function randomOwnerPassword(): string {
  return randomBytes(32).toString("base64url");
}
