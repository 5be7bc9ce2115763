import { execFile } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { parseAllowlist, type ResolvedAddress, type Resolver } from "@octavo/net";
import { corpusDir } from "@octavo/testing";
import sniffHtmlEncoding from "html-encoding-sniffer";
import { type DefaultTreeAdapterTypes, parse } from "parse5";
import { HtmlRenderer, type HtmlRendererOptions, type HtmlRenderOptions } from "../src/index.js";

const execFileAsync = promisify(execFile);

export { corpusDir };

export const defaults: HtmlRenderOptions = {
  format: "A4",
  landscape: false,
  margin: "small",
  background: true,
  media: "screen",
};

export async function tempDir(): Promise<{ path: string; remove: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), "octavo-browser-test-"));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/**
 * DNS for tests: a few names answer loopback addresses, everything else is NXDOMAIN, so no query
 * (and no packet) leaves the machine.
 */
export function testResolver(names: Readonly<Record<string, readonly string[]>>): Resolver {
  return async (host): Promise<readonly ResolvedAddress[]> => {
    const answer = names[host.toLowerCase()];
    if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
    return answer.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
}

export interface LogEntry {
  level: "info" | "warn";
  msg: string;
  obj: Record<string, unknown>;
}

export function createTestRenderer(
  workDir: string,
  overrides: Partial<HtmlRendererOptions> = {},
): { renderer: HtmlRenderer; logs: LogEntry[] } {
  const logs: LogEntry[] = [];
  const renderer = new HtmlRenderer({
    allowlist: parseAllowlist(""),
    resolve: testResolver({}),
    maxJobsPerBrowser: 50,
    renderTimeoutMs: 20_000,
    maxPages: 200,
    maxBytes: 20_000_000,
    workDir,
    logger: {
      info: (obj, msg) => logs.push({ level: "info", msg, obj: { ...obj } }),
      warn: (obj, msg) => logs.push({ level: "warn", msg, obj: { ...obj } }),
    },
    ...overrides,
  });
  return { renderer, logs };
}

export async function pdfText(path: string): Promise<string> {
  const { stdout } = await execFileAsync("pdftotext", ["-enc", "UTF-8", path, "-"], {
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

export interface PdfInfo {
  pages: number;
  /** Points, as pdfinfo prints them (first page). */
  width: number;
  height: number;
}

export async function pdfInfo(path: string): Promise<PdfInfo> {
  const { stdout } = await execFileAsync("pdfinfo", [path]);
  const pages = /^Pages:\s+(\d+)/m.exec(stdout)?.[1];
  const size = /^Page size:\s+([\d.]+) x ([\d.]+) pts/m.exec(stdout);
  if (pages === undefined || !size?.[1] || !size[2]) throw new Error(`pdfinfo: unexpected output\n${stdout}`);
  return { pages: Number(pages), width: Number(size[1]), height: Number(size[2]) };
}

/** The x of the left edge of the first word on page 1, in points. */
export async function firstWordX(path: string): Promise<number> {
  const { stdout } = await execFileAsync("pdftotext", ["-bbox", "-f", "1", "-l", "1", path, "-"]);
  const x = /<word xMin="([\d.]+)"/.exec(stdout)?.[1];
  if (x === undefined) throw new Error("no word on page 1");
  return Number(x);
}

/** The RGB of the pixel at (fx, fy) (fractions of the page) of page 1, rendered at 20 dpi. */
export async function pixelAt(path: string, fx: number, fy: number): Promise<[number, number, number]> {
  const { stdout } = await execFileAsync("pdftoppm", ["-r", "20", "-f", "1", "-l", "1", path], {
    encoding: "buffer",
    maxBuffer: 16 * 1024 * 1024,
  });
  // P6 header: "P6\n<w> <h>\n255\n", then RGB bytes.
  const header = /^P6\s+(\d+)\s+(\d+)\s+255\s/.exec(stdout.subarray(0, 40).toString("latin1"));
  if (!header?.[1] || !header[2]) throw new Error("pdftoppm: not a PPM");
  const width = Number(header[1]);
  const height = Number(header[2]);
  const at = header[0].length + (Math.floor(fy * height) * width + Math.floor(fx * width)) * 3;
  return [stdout[at] ?? -1, stdout[at + 1] ?? -1, stdout[at + 2] ?? -1];
}

const hiddenElements = new Set(["script", "style", "noscript", "template", "head", "title"]);

/** The text a reader sees in an HTML file, decoded as a browser would, by a real HTML parser. */
export async function htmlText(path: string): Promise<string> {
  const bytes = await readFile(path);
  const encoding = sniffHtmlEncoding(bytes, { maxPrescanBytes: Infinity, defaultEncoding: "UTF-8" });
  const document = parse(new TextDecoder(encoding).decode(bytes));
  const parts: string[] = [];
  const walk = (node: DefaultTreeAdapterTypes.ChildNode | DefaultTreeAdapterTypes.Document): void => {
    if (node.nodeName === "#text" && "value" in node) parts.push(node.value);
    if ("tagName" in node && hiddenElements.has(node.tagName)) return;
    if ("childNodes" in node) for (const child of node.childNodes) walk(child);
  };
  walk(document);
  return parts.join(" ");
}

export function words(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
}

/** Share of the expected words found in the actual text. */
export function recall(expected: Set<string>, actual: Set<string>): number {
  if (expected.size === 0) return 1;
  let found = 0;
  for (const word of expected) if (actual.has(word)) found += 1;
  return found / expected.size;
}

export interface TestServer {
  port: number;
  /** Every request line it answered ("GET /x"), and every TCP connection it accepted. */
  requests: string[];
  connections: number;
  close: () => Promise<void>;
}

/** An HTTP server on a loopback address that records all it receives, WebSocket upgrades included. */
export async function startServer(
  host: string,
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  port = 0,
): Promise<TestServer> {
  const server: Server = createServer((req, res) => {
    state.requests.push(`${req.method} ${req.url}`);
    handler(req, res);
  });
  const sockets = new Set<Socket>();
  const state: TestServer = {
    port: 0,
    requests: [],
    connections: 0,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, "close");
    },
  };
  server.on("connection", (socket: Socket) => {
    state.connections += 1;
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  server.on("upgrade", (req: IncomingMessage, socket: Socket) => {
    state.requests.push(`UPGRADE ${req.url}`);
    socket.destroy();
  });
  server.listen(port, host);
  await once(server, "listening");
  state.port = (server.address() as AddressInfo).port;
  return state;
}

export async function writeHtml(dir: string, name: string, html: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, html);
  return path;
}
