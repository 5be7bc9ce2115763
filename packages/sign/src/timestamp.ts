import { createHash, randomBytes } from "node:crypto";
import { JobFailure } from "@octavo/engines";
import { type AllowList, OutboundError, postBytes, type Resolver } from "@octavo/net";
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { oids, toArrayBuffer } from "./cms.js";

/** Where the signature time-stamp comes from, and the outbound policy the request goes through. */
export interface TimestampAuthority {
  url: string;
  allowlist: AllowList;
  resolve?: Resolver;
}

const tsaTimeoutMs = 20_000;
// A time-stamp token with the TSA's certificate chain is a few KiB.
const maxReplyBytes = 256 * 1024;

/**
 * Asks an RFC 3161 time-stamp authority to stamp the signature value (PAdES B-T's signature-time-stamp),
 * under the one outbound policy, and checks that the token it returns stamps that value with our nonce.
 */
export async function stampSignature(
  signatureValue: Uint8Array,
  authority: TimestampAuthority,
  signal?: AbortSignal,
): Promise<pkijs.ContentInfo> {
  const imprint = createHash("sha256").update(signatureValue).digest();
  const nonce = randomBytes(8);
  nonce[0] = (nonce[0] ?? 0) & 0x7f; // a positive INTEGER
  const query = new pkijs.TimeStampReq({
    version: 1,
    messageImprint: new pkijs.MessageImprint({
      hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: oids.sha256 }),
      hashedMessage: new asn1js.OctetString({ valueHex: toArrayBuffer(imprint) }),
    }),
    nonce: new asn1js.Integer({ valueHex: toArrayBuffer(nonce) }),
    certReq: true,
  });
  const reply = await ask(authority, new Uint8Array(query.toSchema().toBER(false)), signal);
  let response: pkijs.TimeStampResp;
  try {
    response = pkijs.TimeStampResp.fromBER(toArrayBuffer(reply));
  } catch (error) {
    throw refused(authority.url, "its answer is not an RFC 3161 time-stamp response", error);
  }
  const status = response.status.status;
  const token = response.timeStampToken;
  if ((status !== 0 && status !== 1) || token === undefined) {
    throw refused(authority.url, `it refused the request (PKIStatus ${status})`);
  }
  checkToken(token, imprint, nonce, authority.url);
  return token;
}

async function ask(authority: TimestampAuthority, query: Uint8Array, signal?: AbortSignal): Promise<Buffer> {
  try {
    const answer = await postBytes(
      authority.url,
      query,
      { "content-type": "application/timestamp-query" },
      {
        allowlist: authority.allowlist,
        ...(authority.resolve ? { resolve: authority.resolve } : {}),
        ...(signal ? { signal } : {}),
        timeoutMs: tsaTimeoutMs,
        maxAnswerBytes: maxReplyBytes,
      },
    );
    if (answer.status !== 200) throw refused(authority.url, `it answered HTTP ${answer.status}`);
    return answer.body;
  } catch (error) {
    if (error instanceof JobFailure || !(error instanceof OutboundError)) throw error;
    if (error.code === "blocked_url") {
      throw new JobFailure(
        "invalid_input",
        `options.timestampUrl (${authority.url}) is not a public address; give a public RFC 3161 time-stamp server.`,
      );
    }
    throw refused(authority.url, `it could not be reached (${error.message})`);
  }
}

/** The token's TSTInfo must stamp our imprint, with our nonce: a reply to this request, not a replay. */
function checkToken(token: pkijs.ContentInfo, imprint: Buffer, nonce: Buffer, url: string): void {
  try {
    const signed = new pkijs.SignedData({ schema: token.content });
    const content = signed.encapContentInfo.eContent;
    if (content === undefined) throw new Error("the token holds no TSTInfo");
    const info = pkijs.TSTInfo.fromBER(content.valueBlock.valueHexView);
    const stamped = Buffer.from(info.messageImprint.hashedMessage.valueBlock.valueHexView);
    const echoed = info.nonce ? Buffer.from(info.nonce.valueBlock.valueHexView) : undefined;
    if (!stamped.equals(imprint)) throw new Error("the token stamps another value");
    if (echoed === undefined || !echoed.equals(nonce)) throw new Error("the token's nonce is not ours");
  } catch (error) {
    throw refused(url, "its time-stamp token does not answer this request", error);
  }
}

function refused(url: string, why: string, cause?: unknown): JobFailure {
  return new JobFailure(
    "conversion_failed",
    `The time-stamp server at ${url} gave no time-stamp: ${why}. Try again, or sign without options.timestampUrl.`,
    { detail: cause instanceof Error ? cause.message : undefined, cause },
  );
}
