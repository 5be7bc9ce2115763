import { writeFile } from "node:fs/promises";
import { strToU8, type Zippable, zipSync } from "fflate";

/** Writes an ODF package: `mimetype` first and stored, as the format requires. */
async function writeOdf(path: string, mimetype: string, files: Record<string, string>): Promise<void> {
  const manifestEntries = Object.keys(files)
    .map((name) => `<manifest:file-entry manifest:full-path="${name}" manifest:media-type="text/xml"/>`)
    .join("\n");
  const zippable: Zippable = {
    mimetype: [strToU8(mimetype), { level: 0 }],
    "META-INF/manifest.xml": strToU8(`<?xml version="1.0" encoding="UTF-8"?>
<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">
<manifest:file-entry manifest:full-path="/" manifest:media-type="${mimetype}"/>
${manifestEntries}
</manifest:manifest>`),
  };
  for (const [name, text] of Object.entries(files)) zippable[name] = strToU8(text);
  await writeFile(path, zipSync(zippable));
}

const odtNamespaces = [
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"',
  'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"',
  'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"',
  'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"',
  'xmlns:script="urn:oasis:names:tc:opendocument:xmlns:script:1.0"',
  'xmlns:xlink="http://www.w3.org/1999/xlink"',
  // Event names and script languages are QNames: without these two declarations LibreOffice ignores the
  // event binding altogether, and a macro test would pass for the wrong reason.
  'xmlns:dom="http://www.w3.org/2001/xml-events"',
  'xmlns:ooo="http://openoffice.org/2004/office"',
].join(" ");

/** An ODT whose only picture is linked, not embedded: loading it fetches `imageUrl`. */
export async function odtWithLinkedImage(path: string, imageUrl: string): Promise<void> {
  await writeOdf(path, "application/vnd.oasis.opendocument.text", {
    "content.xml": `<?xml version="1.0" encoding="UTF-8"?>
<office:document-content ${odtNamespaces} office:version="1.2"><office:body><office:text>
<text:p>A picture linked from the network follows.</text:p>
<text:p><draw:frame draw:name="linked" text:anchor-type="as-char" svg:width="2cm" svg:height="2cm"><draw:image xlink:href="${imageUrl}" xlink:type="simple" xlink:show="embed" xlink:actuate="onLoad"/></draw:frame></text:p>
</office:text></office:body></office:document-content>`,
  });
}

/** A DOCX with an external image relationship (r:link, TargetMode="External"). */
export async function docxWithLinkedImage(path: string, imageUrl: string): Promise<void> {
  const files: Zippable = {
    "[Content_Types].xml": strToU8(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`),
    "_rels/.rels": strToU8(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`),
    "word/_rels/document.xml.rels": strToU8(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rIdImg" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="${imageUrl}" TargetMode="External"/></Relationships>`),
    "word/document.xml": strToU8(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"><w:body>
<w:p><w:r><w:t>A picture linked from the network follows.</w:t></w:r></w:p>
<w:p><w:r><w:drawing><wp:inline><wp:extent cx="720000" cy="720000"/><wp:docPr id="1" name="linked"/><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic><pic:nvPicPr><pic:cNvPr id="1" name="linked.png"/><pic:cNvPicPr/></pic:nvPicPr><pic:blipFill><a:blip r:link="rIdImg"/><a:stretch><a:fillRect/></a:stretch></pic:blipFill><pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="720000" cy="720000"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></pic:spPr></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>
</w:body></w:document>`),
  };
  await writeFile(path, zipSync(files));
}

/** An ODT with a Basic macro bound to its open event (OnLoad, `dom:load`) that writes `markerPath`. */
export async function odtWithAutoRunMacro(path: string, markerPath: string): Promise<void> {
  const basic = `Sub OnOpen
  Dim n As Integer
  n = FreeFile
  Open &quot;${markerPath}&quot; For Output As #n
  Print #n, &quot;the macro ran&quot;
  Close #n
End Sub
`;
  await writeOdf(path, "application/vnd.oasis.opendocument.text", {
    "content.xml": `<?xml version="1.0" encoding="UTF-8"?>
<office:document-content ${odtNamespaces} office:version="1.2">
<office:scripts><office:event-listeners><script:event-listener script:language="ooo:script" script:event-name="dom:load" xlink:href="vnd.sun.star.script:Standard.Module1.OnOpen?language=Basic&amp;location=document" xlink:type="simple"/></office:event-listeners></office:scripts>
<office:body><office:text><text:p>This document runs a macro when it is opened.</text:p></office:text></office:body></office:document-content>`,
    "Basic/script-lc.xml": `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE library:libraries PUBLIC "-//OpenOffice.org//DTD OfficeDocument 1.0//EN" "libraries.dtd">
<library:libraries xmlns:library="http://openoffice.org/2000/library" xmlns:xlink="http://www.w3.org/1999/xlink"><library:library library:name="Standard" library:link="false"/></library:libraries>`,
    "Basic/Standard/script-lb.xml": `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE library:library PUBLIC "-//OpenOffice.org//DTD OfficeDocument 1.0//EN" "library.dtd">
<library:library xmlns:library="http://openoffice.org/2000/library" library:name="Standard" library:readonly="false" library:passwordprotected="false"><library:element library:name="Module1"/></library:library>`,
    "Basic/Standard/Module1.xml": `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE script:module PUBLIC "-//OpenOffice.org//DTD OfficeDocument 1.0//EN" "module.dtd">
<script:module xmlns:script="http://openoffice.org/2000/script" script:name="Module1" script:language="StarBasic">${basic}</script:module>`,
  });
}

/** A LibreOffice profile with macro security "low": macros run without asking. For positive controls. */
export async function lowSecurityProfile(userDir: string): Promise<void> {
  await writeFile(
    `${userDir}/registrymodifications.xcu`,
    `<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Common/Security/Scripting"><prop oor:name="MacroSecurityLevel" oor:op="fuse"><value>0</value></prop></item>
</oor:items>
`,
  );
}
