import { Type } from "@sinclair/typebox";

/** The member a test job's JSON output starts with (@octavo/test-mark); a live job's outputs have none. */
export const livemodeMember = Type.Optional(
  Type.Literal(false, {
    description: "Present, and false, only in the output of a test job (a test key's).",
  }),
);
