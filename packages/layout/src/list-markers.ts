/**
 * A list's marker: a bullet or a dash, and the private-use characters that Symbol and Wingdings
 * bullets come out as (Word's "" is U+F0B7).
 */
export const listMarker = /^[•◦▪▫●○■□►▸‣⁃–—*·\-\uf020-\uf0ff]$/u;
