// The tests' PDF/A engine process (a ChildPool of @octavo/testing runs two): one toPdfA conversion per
// call, answered with its result or failure. Each call starts on a fresh MuPDF instance, as a reused
// sandbox of the worker does: a long run of documents on one instance can corrupt MuPDF.js's WASM heap
// (a crash in a finaliser after about 25 files; see the known limits in docs/engines.md).
import { renewMupdf } from "@octavo/mupdf";
import { answerCalls } from "@octavo/testing/child-pool";
import { toPdfA } from "../dist/index.js";

/** { path, name, level, workDir } → { result } or { failure }. */
answerCalls(async ({ path, name, level, workDir }) => {
  await renewMupdf();
  try {
    return { result: await toPdfA({ path, name }, { level }, { workDir }) };
  } catch (error) {
    return {
      failure: { code: error.code ?? "internal", message: String(error.message), detail: error.detail },
    };
  }
});
