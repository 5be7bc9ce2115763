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
 * MuPDF.js's module code as the body of a function: the same code, with its one import passed in and its
 * exports returned (see compileModuleBody). The rewrite is done on the syntax tree (acorn), so any export
 * form it does not know makes it throw rather than guess: a MuPDF.js upgrade that changes the module's shape
 * fails its tests, loudly.
 */
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
