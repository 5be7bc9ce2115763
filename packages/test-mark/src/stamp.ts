/** The words every output of a test job carries, where a reader of that output sees them. */
export const testModeStamp = "octavo test mode";
