import { optionsObject } from "../schema-helpers.js";

/** Shared by every operation without options: only `{}` is accepted. */
export const NoOptions = optionsObject({}, "This operation takes no options; send {} or leave options out.");
