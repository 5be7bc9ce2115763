import { operationCatalogue } from "@octavo/client/catalogue";
import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { inputsArgument, jobTools, operationTool } from "../src/tools.js";

describe("the tools, generated from the catalogue", () => {
  const tools = operationCatalogue.map((operation) => operationTool(operation, "paths-and-urls"));

  it("gives every operation a tool named by its id, with a JSON Schema an MCP client can compile", () => {
    expect(tools.map((tool) => tool.name)).toEqual(operationCatalogue.map((operation) => operation.id));
    const ajv = new Ajv({ strict: false });
    for (const tool of [...tools, ...jobTools])
      expect(() => ajv.compile(tool.inputSchema), tool.name).not.toThrow();
    // The files' argument never clashes with an option.
    for (const operation of operationCatalogue)
      expect(operation.options.map((option) => option.name)).not.toContain(inputsArgument);
  });

  it("takes the files, the named uploads and the options, and checks them as the API does", () => {
    const sign = tools.find((tool) => tool.name === "sign");
    expect(sign?.inputSchema.required).toEqual(expect.arrayContaining(["inputs", "certificate"]));
    const ajv = new Ajv({ strict: false });
    const rotate = ajv.compile(tools.find((tool) => tool.name === "rotate")?.inputSchema ?? {});
    expect(rotate({ inputs: ["a.pdf"], angle: 90 })).toBe(true);
    expect(rotate({ inputs: ["a.pdf"], angle: 45 })).toBe(false);
    expect(rotate({ inputs: [] })).toBe(false);
    const merge = ajv.compile(tools.find((tool) => tool.name === "merge")?.inputSchema ?? {});
    expect(merge({ inputs: ["a.pdf"] })).toBe(false); // two at least
    // HTTP mode says the files are URLs.
    for (const operation of operationCatalogue) {
      const overHttp = operationTool(operation, "urls");
      expect(JSON.stringify(overHttp.inputSchema.properties.inputs)).toContain("reads no local file");
    }
  });
});
