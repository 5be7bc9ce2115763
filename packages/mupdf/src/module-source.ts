import { readFile } from "node:fs/promises";
import { compileFunction } from "node:vm";
import { type Node, parse } from "acorn";
import { simple as walk } from "acorn-walk";

/** The WASM loader MuPDF.js imports (Emscripten's factory), passed in instead of imported. */
const LOADER_SPECIFIER = "./mupdf-wasm.js";

interface Edit {
  start: number;
  end: number;
  text: string;
}

/**
 * Runs MuPDF.js's module code once more around a new WebAssembly instance and returns its exports.
 * `loader` is Emscripten's factory from mupdf-wasm.js; `dynamicImport` stands in for `import()`.
 */
export type ModuleBody = (
  loader: unknown,
  dynamicImport: (specifier: string) => Promise<unknown>,
  importMeta: { url: string },
) => Promise<Record<string, unknown>>;

/**
 * MuPDF.js is an ES module that binds all its classes to one WebAssembly instance, made when the module
 * is evaluated; Node evaluates a module once per process and never lets it go. To give each job an
 * instance of its own, the module's source is rewritten, once per process, into the body of a function:
 * the same code, with its one import passed in and its exports returned. Each call evaluates the code
 * anew around a new instance, and all of it is garbage once the caller drops what the call returned.
 *
 * The rewrite is done on the syntax tree (acorn), so any export form it does not know makes it throw
 * rather than guess: a MuPDF.js upgrade that changes the module's shape fails its tests, loudly.
 */
export async function compileModuleBody(path: string): Promise<ModuleBody> {
  const source = await readFile(path, "utf8");
  const body = asFunctionBody(source);
  // One line, so positions in stack traces stay those of MuPDF.js's own file.
  const wrapped = `return (async () => { "use strict"; ${body}\n})();`;
  return compileFunction(wrapped, ["$loader", "$import", "$importMeta"], {
    filename: path,
  }) as unknown as ModuleBody;
}

/** The module's code as a function body; exported for the tests. */
export function asFunctionBody(source: string): string {
  const tree = parse(source, { ecmaVersion: "latest", sourceType: "module" });
  const edits: Edit[] = [];
  const exported: [local: string, name: string][] = [];

  for (const node of tree.body) {
    switch (node.type) {
      case "ImportDeclaration": {
        const [specifier] = node.specifiers;
        if (
          node.source.value !== LOADER_SPECIFIER ||
          node.specifiers.length !== 1 ||
          specifier?.type !== "ImportDefaultSpecifier"
        )
          throw unexpected(source, node);
        edits.push({ start: node.start, end: node.end, text: `const ${specifier.local.name} = $loader;` });
        break;
      }
      case "ExportNamedDeclaration": {
        if (node.source) throw unexpected(source, node);
        if (node.declaration) {
          edits.push({ start: node.start, end: node.declaration.start, text: "" });
          for (const name of declaredNames(node.declaration, source)) exported.push([name, name]);
        } else {
          edits.push({ start: node.start, end: node.end, text: "" });
          for (const specifier of node.specifiers) {
            if (specifier.local.type !== "Identifier") throw unexpected(source, node);
            exported.push([specifier.local.name, exportName(specifier.exported)]);
          }
        }
        break;
      }
      case "ExportDefaultDeclaration": {
        const declaration = node.declaration;
        const named =
          (declaration.type === "FunctionDeclaration" || declaration.type === "ClassDeclaration") &&
          declaration.id;
        if (named) {
          edits.push({ start: node.start, end: declaration.start, text: "" });
          exported.push([named.name, "default"]);
        } else {
          edits.push({ start: node.start, end: declaration.start, text: "const $default = " });
          exported.push(["$default", "default"]);
        }
        break;
      }
      case "ExportAllDeclaration":
        throw unexpected(source, node);
      default:
        break;
    }
  }
  walk(tree, {
    ImportExpression(node) {
      edits.push({ start: node.start, end: node.start + "import".length, text: "$import" });
    },
    MetaProperty(node) {
      if (node.meta.name === "import") edits.push({ start: node.start, end: node.end, text: "$importMeta" });
    },
  });

  let body = source;
  for (const edit of edits.sort((a, b) => b.start - a.start)) {
    body = body.slice(0, edit.start) + edit.text + body.slice(edit.end);
  }
  const fields = exported.map(([local, name]) => `${JSON.stringify(name)}: ${local}`);
  return `${body}\nreturn { ${fields.join(", ")} };`;
}

function declaredNames(declaration: Node, source: string): string[] {
  if (
    (declaration.type === "FunctionDeclaration" || declaration.type === "ClassDeclaration") &&
    "id" in declaration &&
    declaration.id
  ) {
    return [(declaration.id as { name: string }).name];
  }
  if (declaration.type === "VariableDeclaration" && "declarations" in declaration) {
    return (declaration.declarations as { id: Node }[]).map(({ id }) => {
      if (id.type !== "Identifier") throw unexpected(source, declaration);
      return (id as unknown as { name: string }).name;
    });
  }
  throw unexpected(source, declaration);
}

function exportName(exported: { type: string; name?: string; value?: unknown }): string {
  return exported.type === "Identifier" ? String(exported.name) : String(exported.value);
}

function unexpected(source: string, node: Node): Error {
  const text = source.slice(node.start, Math.min(node.end, node.start + 80));
  return new Error(`MuPDF.js has a module form this loader does not rewrite: ${text}`);
}
