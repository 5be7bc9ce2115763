import { describe, expect, it } from "vitest";
import { doctor } from "../src/index.js";

describe("doctor", () => {
  it("finds every engine with its version", async () => {
    const components = await doctor();
    const byName = new Map(components.map((component) => [component.name, component]));
    expect(byName.get("qpdf")).toMatchObject({ found: true, version: expect.stringMatching(/^11\./) });
    expect(byName.get("ghostscript")).toMatchObject({ found: true, version: expect.stringMatching(/^10\./) });
    expect(byName.get("pdfinfo (poppler)")).toMatchObject({
      found: true,
      version: expect.stringMatching(/^\d+\.\d+/),
    });
    expect(byName.get("prlimit (util-linux)")).toMatchObject({
      found: true,
      version: expect.stringMatching(/^2\./),
    });
    expect(byName.get("mupdf")).toMatchObject({ found: true, version: "1.28.1" });
    expect(byName.get("@mongodb-js/saslprep")?.found).toBe(true);
    for (const component of components) {
      expect(component.usedFor.length).toBeGreaterThan(10);
      if (component.found) expect(component.path).toMatch(/^\//);
    }
  });
});
