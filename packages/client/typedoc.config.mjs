// The reference of the SDK, from its doc comments: `pnpm --filter @octavo/client docs` writes docs/.
// A test runs it with --emit none, so an undocumented export or a broken link fails the build.
import { OptionDefaults } from "typedoc";

/** @type {Partial<import("typedoc").TypeDocOptions>} */
const config = {
  name: "@octavo/client",
  entryPoints: ["src/node.ts", "src/catalogue.ts"],
  tsconfig: "tsconfig.build.json",
  out: "docs",
  readme: "README.md",
  excludePrivate: true,
  excludeInternal: true,
  disableGit: true,
  sourceLinkTemplate: "https://github.com/octavo/octavo/blob/main/packages/client/{path}#L{line}",
  // openapi-typescript writes @description and @constant in the generated types.
  blockTags: [...OptionDefaults.blockTags, "@description", "@constant"],
  // Every function, class, interface, method and type must say what it is for; the generated API
  // types name schemas the reference does not list, so unexported references are not checked.
  validation: { notExported: false, invalidLink: true, notDocumented: true },
  requiredToBeDocumented: ["Enum", "Variable", "Function", "Class", "Interface", "Method", "TypeAlias"],
  treatWarningsAsErrors: true,
};

export default config;
