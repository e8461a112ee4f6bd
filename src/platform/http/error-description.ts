/**
 * RFC 6749 §4.1.2.1 and §5.2: `error_description` is limited to %x20-21 / %x23-5B / %x5D-7E
 * (printable ASCII without `"` and `\`). Our descriptions sometimes echo request input (a
 * parameter name, a grant type, a resource URI), so every description is passed through here
 * once, where the error is built: a quote becomes `'`, a backslash `/`, anything else outside
 * the set (controls, DEL, non-ASCII, one per code point) `?`; at most `max` characters are kept.
 */
const MAX = 200;

export interface DescriptionOptions {
  /** Characters kept (default 200); the api family's invalid_request lists several violations. */
  max?: number;
  /**
   * Keep `"` and `\` (all printable ASCII): for a description that only ever travels as a JSON
   * string (the api family's bodies), never in a redirect or a WWW-Authenticate quoted-string,
   * where RFC 6749 excludes them. A pattern the value must match keeps its backslashes.
   */
  jsonOnly?: boolean;
}

export function safeErrorDescription(text: string, opts: DescriptionOptions = {}): string {
  const max = opts.max ?? MAX;
  const quotes = opts.jsonOnly === true;
  let out = '';
  let n = 0;
  for (const ch of text) {
    if (n++ === max) {
      out += '...';
      break;
    }
    const cp = ch.codePointAt(0)!;
    if (ch === '"' && !quotes) out += "'";
    else if (ch === '\\' && !quotes) out += '/';
    else if (cp < 0x20 || cp > 0x7e) out += '?';
    else out += ch;
  }
  return out;
}
