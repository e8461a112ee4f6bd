/**
 * Examples for the OpenAPI document's request bodies, made from the very JSON Schema the route
 * validates with: the schema's own `examples`/`default`/`const`/`enum` when it has them, else a
 * value built from its type and bounds (every property of an object, the first branch of a
 * union, `minItems` items, a string that fits the pattern and lengths). openapi-lint.test.ts
 * checks each example against its schema, so a schema this cannot satisfy is caught there (give
 * it `examples`, or the route's `body.example`).
 */
type Schema = {
  type?: string | string[];
  examples?: unknown[];
  default?: unknown;
  const?: unknown;
  enum?: unknown[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
};

const FORMATS: Record<string, string> = {
  uuid: '5b1c1f4e-8a2d-4c3b-9e7f-0a1b2c3d4e5f',
  'date-time': '2026-01-01T09:30:00Z',
  date: '2026-01-01',
  email: 'ada@example.com',
  uri: 'https://app.example.com/callback',
  url: 'https://app.example.com/callback',
};

/** Likelier values by property name, used when the schema accepts them. */
const BY_NAME: Record<string, string> = {
  email: 'ada@example.com',
  password: 'correct-horse-battery-staple',
  new_password: 'correct-horse-battery-staple',
  current_password: 'an-old-passphrase',
  redirect_uri: 'https://app.example.com/callback',
  client_id: 'my-app',
  clientId: 'my-app',
  scope: 'openid email',
  locale: 'en-US',
  timezone: 'Europe/Paris',
  displayName: 'Example',
  slug: 'acme',
  code: '123456',
  grant_type: 'authorization_code',
};

/** Words tried, in order, against a string's pattern and lengths. */
const WORDS = ['example', 'example-1', 'Example', 'EXAMPLE', 'example_key', 'a', 'A', '1', '123456', 'ada@example.com', 'https://example.com'];

export function exampleOf(schema: object, depth = 0, name?: string): unknown {
  const s = schema as Schema;
  if (s.examples?.length) return s.examples[0];
  if (s.default !== undefined) return s.default;
  if (s.const !== undefined) return s.const;
  if (s.enum?.length) return s.enum[0];
  // A nullable value's example is null: the required-but-nullable fields of a body are the ones
  // that only some variants fill (a TENANT role assignment has no organizationId).
  const branches = s.anyOf ?? s.oneOf;
  if (branches?.some((b) => b.type === 'null') || (Array.isArray(s.type) && s.type.includes('null'))) return null;
  if (branches?.length) return exampleOf(branches[0], depth + 1, name);
  if (s.allOf?.length) return Object.assign({}, ...s.allOf.map((b) => exampleOf(b, depth + 1)));
  const type = Array.isArray(s.type) ? s.type[0] : (s.type ?? (s.properties ? 'object' : undefined));
  if (depth > 12) return null;
  switch (type) {
    case 'object': {
      // The required properties when the schema names some (optional ones may exclude each
      // other, as a role assignment's scope and ids do), else every property (a form).
      const keys = s.required?.length ? s.required : Object.keys(s.properties ?? {});
      return Object.fromEntries(keys.filter((k) => s.properties?.[k]).map((k) => [k, exampleOf(s.properties![k], depth + 1, k)]));
    }
    case 'array': {
      const n = Math.min(Math.max(s.minItems ?? 1, 1), s.maxItems ?? 1);
      return s.items ? Array.from({ length: n }, () => exampleOf(s.items!, depth + 1)) : [];
    }
    case 'string':
      return stringOf(s, name);
    case 'integer':
    case 'number':
      return numberOf(s, type === 'integer');
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return {};
  }
}

function stringOf(s: Schema, name?: string): string {
  if (s.format && FORMATS[s.format]) return FORMATS[s.format];
  const min = s.minLength ?? 0;
  const max = s.maxLength ?? Infinity;
  const re = s.pattern ? new RegExp(s.pattern, 'u') : undefined;
  const fits = (w: string) => [...w].length >= min && [...w].length <= max && (!re || re.test(w));
  const likely = name === undefined ? undefined : BY_NAME[name];
  if (likely && fits(likely)) return likely;
  // Lengths worth padding to: the minimum, and each count the pattern names (`{43}`, `{16,128}`).
  const lengths = [min, ...[...(s.pattern ?? '').matchAll(/\{(\d+)/g)].map((m) => Number(m[1]))];
  for (const w of WORDS) {
    if (fits(w)) return w;
    for (const n of lengths) {
      const padded = w.padEnd(n, w.slice(-1));
      if (fits(padded)) return padded;
    }
  }
  return 'example'.padEnd(min, 'x').slice(0, Number.isFinite(max) ? max : undefined);
}

function numberOf(s: Schema, integer: boolean): number {
  let n = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 1);
  if (s.maximum !== undefined) n = Math.min(n, s.maximum);
  if (s.exclusiveMaximum !== undefined && n >= s.exclusiveMaximum) n = s.exclusiveMaximum - 1;
  return integer ? Math.ceil(n) : n;
}
