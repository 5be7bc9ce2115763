/** This client's version, sent in its User-Agent. */
export const VERSION = "0.1.0";
