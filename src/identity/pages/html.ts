/**
 * Minimal HTML building: every interpolated value goes through `esc` unless it is a
 * `Raw` fragment produced by these helpers. No template engine, no client-side script.
 */
export class Raw {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function esc(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (ch) => ESCAPES[ch]);
}

type Part = Raw | string | number | undefined | null | false | readonly Part[];

function render(part: Part): string {
  if (part === undefined || part === null || part === false) return '';
  if (part instanceof Raw) return part.value;
  if (Array.isArray(part)) return part.map(render).join('');
  return esc(part);
}

/** Tagged template: interpolations are escaped, nested `html` fragments are kept. */
export function html(strings: TemplateStringsArray, ...parts: Part[]): Raw {
  let out = strings[0];
  parts.forEach((p, i) => {
    out += render(p) + strings[i + 1];
  });
  return new Raw(out);
}
