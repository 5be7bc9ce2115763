export { type AddressClass, classifyAddress } from "./address-policy.js";
export { type AllowList, parseAllowlist } from "./allowlist.js";
export { type CheckedHost, type CheckedTarget, type CheckOptions, checkHost, checkUrl } from "./check.js";
export { type Download, type DownloadOptions, downloadUrl } from "./download.js";
export { OutboundError, type OutboundErrorCode } from "./errors.js";
export { extensionForContentType, fileNameFor } from "./file-name.js";
export { type Resolver, systemResolver } from "./pinned-hosts.js";
export { type PostOptions, postJson } from "./post-json.js";
export { checkTarget, type ResolvedAddress, type TargetDecision } from "./target.js";
