import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { FormFieldReport, FormReport } from "@octavo/contracts";
import {
  displayName,
  type EngineContext,
  type EngineInput,
  type EngineResult,
  freshDir,
  openSource,
  type PdfDocument,
  reportProgress,
  runOperation,
  withPdf,
} from "@octavo/engines";
import { objectAt } from "../pdf-objects.js";
import { type Field, fieldFlags, readFields, textOf } from "./form-fields.js";

/** forms/read: every AcroForm field of the PDF, as fields.json and as the job's `form`. */
export async function readForm(
  input: EngineInput,
  _options: Record<string, never>,
  ctx: EngineContext,
): Promise<EngineResult & { report: FormReport }> {
  const name = displayName(input.name);
  return runOperation(ctx, name, async (scratchDir) => {
    const source = await openSource(input, scratchDir, ctx.signal);
    reportProgress(ctx, 0.2);
    const report = await withPdf(source.path, formReport);
    const output = join(await freshDir(ctx.workDir, "forms-read"), "fields.json");
    await writeFile(output, `${JSON.stringify(report, null, 2)}\n`);
    const warnings = [...source.warnings];
    if (report.form === "xfa-dynamic") warnings.push(dynamicXfaNote(name));
    if (report.form === "none") warnings.push(`${name} has no form fields.`);
    return {
      outputs: [{ path: output, name: "fields.json", contentType: "application/json" }],
      engine: "mupdf",
      warnings,
      report,
    };
  });
}

export function dynamicXfaNote(name: string): string {
  return `${name} is a dynamic XFA form: viewers draw it from its XFA data, which forms/fill cannot fill. Fill it in Adobe Acrobat or Reader, or ask its publisher for an AcroForm version.`;
}

export function formReport(doc: PdfDocument): FormReport {
  const fields = readFields(doc);
  const form = formKindOf(doc, fields);
  return {
    form,
    fillable: (form === "acroform" || form === "xfa-static") && fields.some(isFillable),
    fields: fields.map(fieldReport),
  };
}

export function formKindOf(doc: PdfDocument, fields: Field[]): FormReport["form"] {
  const root = objectAt(doc.getTrailer(), "Root");
  const xfa = !objectAt(root, "AcroForm", "XFA").isNull();
  const drawn = fields.some((field) => field.widgets.some((widget) => widget.pageIndex !== undefined));
  const needsRendering = objectAt(root, "NeedsRendering");
  // NeedsRendering: viewers are to draw the pages from the XFA data, whatever AcroForm fields there are.
  if (needsRendering.isBoolean() && needsRendering.asBoolean()) return "xfa-dynamic";
  if (xfa) return drawn ? "xfa-static" : "xfa-dynamic";
  return fields.length > 0 ? "acroform" : "none";
}

function isFillable(field: Field): boolean {
  return field.type !== "signature" && field.type !== "button" && (field.flags & fieldFlags.readOnly) === 0;
}

function fieldReport(field: Field): FormFieldReport {
  const flag = (bit: number): boolean => (field.flags & bit) !== 0;
  const flags: FormFieldReport["flags"] = {
    required: flag(fieldFlags.required),
    readOnly: flag(fieldFlags.readOnly),
  };
  if (field.type === "text") {
    flags.multiline = flag(fieldFlags.multiline);
    flags.comb = flag(fieldFlags.comb) && field.maxLength !== undefined;
    flags.password = flag(fieldFlags.password);
    if (field.maxLength !== undefined) flags.maxLength = field.maxLength;
  }
  if (field.type === "choice") {
    flags.combo = flag(fieldFlags.combo);
    flags.editable = flag(fieldFlags.combo) && flag(fieldFlags.edit);
    flags.multiSelect = !flag(fieldFlags.combo) && flag(fieldFlags.multiSelect);
  }
  if (field.type === "signature") flags.signed = field.object.getInheritable("V").isDictionary();
  const report: FormFieldReport = {
    name: field.name,
    type: field.type,
    value: currentValue(field),
    flags,
    widgets: field.widgets.flatMap((widget) =>
      widget.pageIndex === undefined ? [] : [{ page: widget.pageIndex + 1, rect: widget.rect.map(rounded) }],
    ),
  };
  if (field.type === "choice" || field.type === "radio")
    report.options = field.choices.map(({ value, label }) => ({ value, label }));
  return report;
}

/** The value in the form forms/fill takes it. */
export function currentValue(field: Field): FormFieldReport["value"] {
  const value = field.object.getInheritable("V");
  switch (field.type) {
    case "text":
      return textOf(value) ?? "";
    case "checkbox": {
      const state = value.isName() ? value.asName() : stateOfWidgets(field);
      return state !== undefined && state !== "Off";
    }
    case "radio": {
      const state = value.isName() ? value.asName() : stateOfWidgets(field);
      return field.choices.find((choice) => choice.state === state)?.value ?? null;
    }
    case "choice": {
      if (value.isArray()) {
        const chosen: string[] = [];
        for (let index = 0; index < value.length; index += 1) {
          const item = textOf(value.get(index));
          if (item !== undefined) chosen.push(item);
        }
        return field.flags & fieldFlags.multiSelect ? chosen : (chosen[0] ?? null);
      }
      const text = textOf(value);
      if (field.flags & fieldFlags.multiSelect && !(field.flags & fieldFlags.combo))
        return text === undefined ? [] : [text];
      return text ?? null;
    }
    default:
      return null;
  }
}

/** A button without /V: the state its widgets show. */
function stateOfWidgets(field: Field): string | undefined {
  for (const widget of field.widgets) {
    const state = widget.object.get("AS");
    if (state.isName() && state.asName() !== "Off") return state.asName();
  }
  return undefined;
}

function rounded(value: number): number {
  return Math.round(value * 100) / 100;
}
