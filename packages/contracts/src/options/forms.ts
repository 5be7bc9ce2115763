import { Type } from "@sinclair/typebox";
import { optionsObject, withDefault } from "../schema-helpers.js";

/** A form value as JSON carries it: the field's type decides which of them it must be. */
export const FormValue = Type.Union(
  [
    Type.String({
      maxLength: 100_000,
      description: "A text field's text, a radio group's or a choice's export value.",
    }),
    Type.Boolean({ description: "A checkbox: true checks it, false clears it." }),
    Type.Array(Type.String({ maxLength: 10_000 }), {
      maxItems: 1000,
      description: "The export values chosen in a multi-select list box.",
    }),
  ],
  {
    description:
      "Strings for text fields, booleans for checkboxes, export values for radio groups and choices, lists of " +
      "export values for multi-select list boxes.",
  },
);

export const FillFormOptions = optionsObject(
  {
    values: Type.Record(Type.String({ minLength: 1, maxLength: 1000 }), FormValue, {
      maxProperties: 5000,
      description:
        "The values to fill, by the fully qualified field name that forms/read reports " +
        '("topmostSubform[0].Page1[0].f1_1[0]"). Fields not named keep their values. Required.',
    }),
    flatten: withDefault(
      Type.Boolean({
        description:
          "After filling, draw the fields into the pages (as /v1/flatten does), so the values can no longer be edited.",
      }),
      false,
    ),
    force: withDefault(
      Type.Boolean({ description: "Fill read-only fields too; without it, naming one is refused." }),
      false,
    ),
  },
  "Options of Fill form.",
);
