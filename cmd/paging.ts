import { InvalidArgumentError, type Command } from 'commander';
import { DEFAULT_PAGE_SIZE, MAX_PAGE, MAX_PAGE_SIZE, type PageRequest } from '../src/platform/http/pagination';
import { output } from './cli';

/**
 * `--page` and `--size` of a list command (issue 23 point 10): the bounds and defaults of the
 * management API's pagination (src/platform/http/pagination.ts: page 0..1,000,000 from 0, size
 * 1..200, 50 by default). A value out of bounds is a usage error (exit 64), named in one line.
 */
export function withPaging(cmd: Command): Command {
  return cmd
    .option('--page <n>', `zero-based page (0 to ${MAX_PAGE})`, integer('--page', 0, MAX_PAGE), 0)
    .option('--size <n>', `items per page (1 to ${MAX_PAGE_SIZE})`, integer('--size', 1, MAX_PAGE_SIZE), DEFAULT_PAGE_SIZE);
}

function integer(flag: string, min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^(?:0|[1-9][0-9]*)$/.test(value) || n < min || n > max) throw new InvalidArgumentError(`${flag} must be an integer from ${min} to ${max}`);
    return n;
  };
}

export const pageRequestOf = (opts: { page: number; size: number }): PageRequest => ({ page: opts.page, size: opts.size });

/**
 * Prints a page's items: under --json the array alone, as before paging (existing consumers keep
 * working; a page shorter than --size is the last); for people, the table and, when more exist,
 * a line on stderr naming the next page.
 */
export function outputPage(json: boolean, page: { items: unknown[]; page: number; hasMore: boolean }, columns: string[]): void {
  output(json, page.items, columns);
  if (!json && page.hasMore) process.stderr.write(`more: --page ${page.page + 1}\n`);
}
