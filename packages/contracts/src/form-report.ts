import { type Static, Type } from "@sinclair/typebox";
import { stringEnum } from "./schema-helpers.js";
import { livemodeMember } from "./test-output.js";

export const formFieldTypes = ["text", "checkbox", "radio", "choice", "signature", "button"] as const;
export const formKinds = ["none", "acroform", "xfa-static", "xfa-dynamic"] as const;

const FieldValue = Type.Union([Type.String(), Type.Boolean(), Type.Array(Type.String()), Type.Null()], {
  description:
    "The current value in the form forms/fill takes: text, true/false for a checkbox, the chosen export value of " +
    "a radio group or choice, a list for a multi-select list box; null when unset (a signature field: whether " +
    "it is signed is in flags.signed).",
});

const FieldOption = Type.Object(
  {
    value: Type.String({ description: "The export value: what forms/fill takes and the form submits." }),
    label: Type.String({ description: "What the viewer shows; the export value when the form names none." }),
  },
  { additionalProperties: false },
);

const Widget = Type.Object(
  {
    page: Type.Integer({ minimum: 1, description: "1-based page number." }),
    rect: Type.Array(Type.Number(), {
      minItems: 4,
      maxItems: 4,
      description:
        "[left, bottom, right, top] in points, in the page's own coordinates (origin bottom left).",
    }),
  },
  { additionalProperties: false },
);

export const FormField = Type.Object(
  {
    name: Type.String({
      description: "The fully qualified name: the partial names from the root, joined by dots.",
    }),
    type: stringEnum(formFieldTypes, "The kind of field."),
    value: FieldValue,
    options: Type.Optional(
      Type.Array(FieldOption, {
        description: "Choices and radio groups: the values it can take, in the form's order.",
      }),
    ),
    flags: Type.Object(
      {
        required: Type.Boolean(),
        readOnly: Type.Boolean({ description: "forms/fill refuses the field unless force is set." }),
        multiline: Type.Optional(Type.Boolean({ description: "Text fields." })),
        comb: Type.Optional(
          Type.Boolean({ description: "Text fields: one character per box, maxLength boxes." }),
        ),
        password: Type.Optional(Type.Boolean({ description: "Text fields." })),
        maxLength: Type.Optional(Type.Integer({ description: "Text fields: the most characters it takes." })),
        multiSelect: Type.Optional(Type.Boolean({ description: "List boxes that take several values." })),
        combo: Type.Optional(
          Type.Boolean({ description: "Choices shown as a drop-down rather than a list." }),
        ),
        editable: Type.Optional(Type.Boolean({ description: "Drop-downs that take text not in options." })),
        signed: Type.Optional(
          Type.Boolean({ description: "Signature fields: whether it holds a signature." }),
        ),
      },
      { additionalProperties: false },
    ),
    widgets: Type.Array(Widget, {
      description: "Where the field is drawn; a field may have several places.",
    }),
  },
  { additionalProperties: false },
);

export const FormReport = Type.Object(
  {
    livemode: livemodeMember,
    form: stringEnum(
      formKinds,
      "none: no form. acroform: an AcroForm. xfa-static: an XFA form with its AcroForm fields, which forms/fill " +
        "fills (the XFA data is then removed). xfa-dynamic: an XFA form drawn from its XFA data, which cannot be " +
        "filled.",
    ),
    fillable: Type.Boolean({ description: "Whether forms/fill can fill the fields." }),
    fields: Type.Array(FormField, {
      description: "Every terminal field of the AcroForm, in the form's order.",
    }),
  },
  {
    additionalProperties: false,
    description: "What Read form reports (fields.json, and in the done job as form).",
  },
);
export type FormReport = Static<typeof FormReport>;
export type FormFieldReport = Static<typeof FormField>;
