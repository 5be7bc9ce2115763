import { durationInWords } from "@octavo/contracts/durations";
import { inputLimits } from "@octavo/contracts/limits";
import { JobFailure } from "@octavo/engines";
import bytes from "bytes";

/** What each extension promises, for messages. */
const formatNames: Readonly<Record<string, string>> = {
  ".doc": "Word 97–2003 (DOC)",
  ".docx": "Word (DOCX)",
  ".odt": "OpenDocument text (ODT)",
  ".rtf": "RTF",
  ".txt": "plain-text",
  ".ppt": "PowerPoint 97–2003 (PPT)",
  ".pptx": "PowerPoint (PPTX)",
  ".odp": "OpenDocument presentation (ODP)",
  ".pps": "PowerPoint 97–2003 slide show (PPS)",
  ".ppsx": "PowerPoint slide show (PPSX)",
  ".xls": "Excel 97–2003 (XLS)",
  ".xlsx": "Excel (XLSX)",
  ".ods": "OpenDocument spreadsheet (ODS)",
  ".csv": "CSV",
};

/** What LibreOffice opened a file as, when that is not what its extension says. */
const kindNames: Readonly<Record<string, string>> = {
  word: "a text document",
  excel: "a spreadsheet",
  powerpoint: "a presentation",
  drawing: "a drawing (for example a PDF or an image)",
};

function formatName(extension: string): string {
  return formatNames[extension] ?? extension.replace(/^\./, "").toUpperCase();
}

export function unsupportedExtension(name: string, supported: readonly string[]): JobFailure {
  return new JobFailure(
    "invalid_input",
    `${name} is not an Office file this service converts; send a file ending in ${supported.join(", ")}.`,
  );
}

export function emptyFile(name: string): JobFailure {
  return new JobFailure("invalid_input", `${name} is empty; there is nothing to convert.`);
}

export function passwordProtected(name: string, detail?: string): JobFailure {
  return new JobFailure(
    "conversion_failed",
    `${name} is password-protected, and the service cannot open password-protected documents. Remove the password in your office application, save the file and send it again.`,
    { detail },
  );
}

export function notWhatItSays(name: string, extension: string, looksLike: string): JobFailure {
  return new JobFailure(
    "invalid_input",
    `${name} is not in the ${formatName(extension)} format: its content is ${looksLike}. Send it with the extension that matches its content.`,
  );
}

/** A warning, not a failure: an empty document converts to a blank page, and that may be what was sent. */
export function convertedToNothing(name: string): string {
  return `${name} converted to a PDF with nothing visible on it: the document has no text, pictures or drawings that print, or uses content the converter cannot render. Check that it shows content in an office application.`;
}

export function zipBomb(name: string, unpacked: number, size: number): JobFailure {
  const { maxUnpackedBytes, maxPackingRatio } = inputLimits;
  const shown = (count: number) => bytes.format(count, { decimalPlaces: 1, unitSeparator: " " });
  return new JobFailure(
    "invalid_input",
    `${name} unpacks to ${shown(unpacked)}, ${Math.round(unpacked / size).toLocaleString("en-US")} times its size: a ZIP bomb, not a document. Packages that unpack to more than ${shown(maxUnpackedBytes)} at over ${maxPackingRatio} times their size are not converted.`,
  );
}

export function openedAs(name: string, extension: string, detected: string): JobFailure {
  return notWhatItSays(name, extension, kindNames[detected] ?? "of another kind");
}

export function damaged(name: string, extension: string, detail: string): JobFailure {
  return new JobFailure(
    "invalid_input",
    `${name} is damaged or is not a valid ${formatName(extension)} file, and LibreOffice could not open it. Check that it opens in an office application and that its extension matches its content.`,
    { detail },
  );
}

export function conversionFailed(name: string, detail: string): JobFailure {
  return new JobFailure(
    "conversion_failed",
    `LibreOffice opened ${name} but could not turn it into a PDF; it may have nothing printable, or use features the converter does not support.`,
    { detail },
  );
}

export function crashed(name: string, detail: string): JobFailure {
  return new JobFailure(
    "conversion_failed",
    `LibreOffice stopped while converting ${name}, also on a second try; the file may be damaged or too complex to convert.`,
    { detail },
  );
}

export function timedOut(name: string, timeoutMs: number): JobFailure {
  const took = durationInWords(Math.round(timeoutMs / 100) / 10);
  return new JobFailure(
    "timeout",
    `Converting ${name} took longer than ${took} and was stopped; try a smaller or simpler file.`,
  );
}

export function unavailable(detail: string): JobFailure {
  return new JobFailure(
    "conversion_failed",
    "The document converter (LibreOffice) could not be started; try again later.",
    { detail },
  );
}

export function shutDown(name: string): JobFailure {
  return new JobFailure(
    "conversion_failed",
    `The converter was shut down while converting ${name}; send the file again.`,
  );
}
