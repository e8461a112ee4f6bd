/**
 * RFC 6749 §4.1.2.1 and §5.2: `error_description` is limited to %x20-21 / %x23-5B / %x5D-7E
 * (printable ASCII without `"` and `\`). Our descriptions sometimes echo request input (a
 * parameter name, a grant type, a resource URI), so every description is passed through here
 * once, where the error is built: a quote becomes `'`, a backslash `/`, anything else outside
 * the set (controls, DEL, non-ASCII, one per code point) `?`; at most MAX characters are kept.
 */
const MAX = 200;

export function safeErrorDescription(text: string): string {
  let out = '';
  let n = 0;
  for (const ch of text) {
    if (n++ === MAX) {
      out += '...';
      break;
    }
    const cp = ch.codePointAt(0)!;
    if (ch === '"') out += "'";
    else if (ch === '\\') out += '/';
    else if (cp < 0x20 || cp > 0x7e) out += '?';
    else out += ch;
  }
  return out;
}
