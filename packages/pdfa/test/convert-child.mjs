// Runs one toPdfA conversion and prints its result or failure as JSON: the tests convert each file in a
// fresh Node process, as the worker's per-job sandbox does (see convert() in pdfa.test.ts for why).
import { toPdfA } from "../dist/index.js";

const [path, name, level, workDir] = process.argv.slice(2);
try {
  const result = await toPdfA({ path, name }, { level }, { workDir });
  process.stdout.write(JSON.stringify({ result }));
} catch (error) {
  const failure = { code: error.code ?? "internal", message: String(error.message), detail: error.detail };
  process.stdout.write(JSON.stringify({ failure }));
}
