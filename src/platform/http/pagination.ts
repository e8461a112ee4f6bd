/**
 * The one pagination contract of the directory and management APIs (spec 03: "Collection reads
 * use a shared pagination contract", query `page` zero-based and `size`; the envelope is ours,
 * docs/decisions.md "Pagination"). `page` is an integer 0..1,000,000 (default 0), `size` an
 * integer 1..200 (default 50); anything else — negative, not a plain decimal integer, `size=0`,
 * `size=201`, a parameter given twice — is 400 invalid_request. Stores fetch size+1 rows to
 * answer `hasMore`: no COUNT, whose cost grows with the collection.
 */
import type { Context } from 'hono';
import { DomainError } from '../errors';
import { T, type Static, type TSchema } from './schema';

export const MAX_PAGE = 1_000_000;
export const MAX_PAGE_SIZE = 200;
export const DEFAULT_PAGE_SIZE = 50;

export interface PageRequest {
  page: number;
  size: number;
}

export interface Page<T> {
  items: T[];
  page: number;
  size: number;
  hasMore: boolean;
}

/** The envelope's schema around `item`, for routes' OpenAPI responses. */
export const pageOf = <S extends TSchema>(item: S) =>
  T.Object(
    {
      items: T.Array(item),
      page: T.Integer({ minimum: 0, description: 'the zero-based page of this answer' }),
      size: T.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, description: 'the page size asked for' }),
      hasMore: T.Boolean({ description: 'true when a next page holds at least one more item' }),
    },
    { additionalProperties: false },
  );

export type PageOf<S extends TSchema> = Static<ReturnType<typeof pageOf<S>>>;

const DECIMAL = /^(?:0|[1-9][0-9]{0,6})$/;

const invalid = (reason: string) => new DomainError('invalid', 'invalid_request', reason);

function one(all: string[], name: string, max: number, min: number, dflt: number): number {
  if (all.length === 0) return dflt;
  if (all.length > 1) throw invalid(`${name}: must be given once`);
  const v = all[0];
  if (!DECIMAL.test(v)) throw invalid(`${name}: must be an integer from ${min} to ${max}`);
  const n = Number(v);
  if (n < min || n > max) throw invalid(`${name}: must be an integer from ${min} to ${max}`);
  return n;
}

/** Reads `page` and `size` from query parameters; DomainError invalid_request when they break the contract. */
export function parsePageRequest(params: URLSearchParams): PageRequest {
  return { page: readPageParam(params.getAll('page')), size: readSizeParam(params.getAll('size')) };
}

const readPageParam = (values: string[]) => one(values, 'page', MAX_PAGE, 0, 0);
const readSizeParam = (values: string[]) => one(values, 'size', MAX_PAGE_SIZE, 1, DEFAULT_PAGE_SIZE);

/**
 * The two query parameters, for a route's declaration (route.ts): documented by their schemas,
 * read by the rules above (which the schemas state), whatever the route's family.
 */
export const pageQuery = {
  page: { schema: T.Integer({ minimum: 0, maximum: MAX_PAGE, default: 0 }), description: 'zero-based page (default 0)', read: readPageParam },
  size: {
    schema: T.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE }),
    description: `page size, 1 to ${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE})`,
    read: readSizeParam,
  },
};

/** `parsePageRequest` of a hono request. */
export function readPage(c: Context): PageRequest {
  const url = c.req.url;
  const q = url.indexOf('?');
  return q < 0 ? { page: 0, size: DEFAULT_PAGE_SIZE } : parsePageRequest(new URLSearchParams(url.slice(q + 1)));
}

/** The page of `rows` fetched with `limitOf(req)` (size+1): the first `size`, and whether more exist. */
export function pageFrom<T>(rows: T[], req: PageRequest): Page<T> {
  return { items: rows.length > req.size ? rows.slice(0, req.size) : rows, page: req.page, size: req.size, hasMore: rows.length > req.size };
}

/** LIMIT and OFFSET for a page request: one row more than the page, to answer hasMore. */
export function limitOf(req: PageRequest): { limit: number; offset: number } {
  return { limit: req.size + 1, offset: req.page * req.size };
}

/** Every row of a listing read page by page (`size` rows a read), in the listing's order. */
export async function everyRow<T>(page: (limit: number, offset: number) => Promise<T[]>, size = 500): Promise<T[]> {
  const out: T[] = [];
  for (let offset = 0; ; offset += size) {
    const rows = await page(size, offset);
    out.push(...rows);
    if (rows.length < size) return out;
  }
}
