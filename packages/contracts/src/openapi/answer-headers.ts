/*
 * Every answer carries X-Request-Id, and every answer of a route that reads the API key carries the
 * RateLimit headers once the key is known. One pass over the built paths declares them on each
 * response, so a path added later cannot leave them out.
 */

type Node = Record<string, unknown>;

const requestId = { "X-Request-Id": { $ref: "#/components/headers/RequestId" } };
const rateLimit = {
  "RateLimit-Policy": { $ref: "#/components/headers/RateLimitPolicy" },
  RateLimit: { $ref: "#/components/headers/RateLimit" },
};

/** The response with the answer headers added to the ones it declares itself; a $ref is left as it is. */
function withAnswerHeaders(response: Node, keyed: boolean): Node {
  if ("$ref" in response) return response;
  const own = (response.headers ?? {}) as Node;
  return { ...response, headers: { ...requestId, ...(keyed ? rateLimit : {}), ...own } };
}

const mapValues = (node: Node, change: (value: Node, key: string) => Node): Node =>
  Object.fromEntries(Object.entries(node).map(([key, value]) => [key, change(value as Node, key)]));

/** Paths whose every response declares the answer headers; an operation with `security: []` reads no key. */
export function declareAnswerHeaders(paths: Node): Node {
  return mapValues(paths, (item) =>
    mapValues(item, (operation) => {
      const keyed = !(Array.isArray(operation.security) && operation.security.length === 0);
      const responses = mapValues(operation.responses as Node, (response) =>
        withAnswerHeaders(response, keyed),
      );
      return { ...operation, responses };
    }),
  );
}

/** The shared error responses: used by routes with and without a key, so RateLimit is declared, not promised. */
export function sharedResponsesWithAnswerHeaders(responses: Node): Node {
  return mapValues(responses, (response) => withAnswerHeaders(response, true));
}
