// The certificates of a PEM file (one CA or a bundle of them), as the blocks OpenSSL reads: text between BEGIN and END
// CERTIFICATE lines, comments and other blocks (keys, CRLs) left out. Pure: no I/O.

const BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

export function certificateBlocks(text: string) {
  return [...text.matchAll(BLOCK)].map((m) => `${m[0]}\n`);
}
