import { fileURLToPath } from "node:url";

// The UNO helper and the profile template are plain files in the package's uno/ directory; from both
// src/ (tests) and dist/ (built) it is one level up.
export const helperScript = fileURLToPath(new URL("../uno/convert.py", import.meta.url));
export const profileTemplate = fileURLToPath(new URL("../uno/registrymodifications.xcu", import.meta.url));
