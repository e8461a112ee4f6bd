/**
 * Drives the sign-in pages without a browser: a cookie jar that honours host and Path (the
 * server's cookies are host-only), relative URLs resolved against the last one requested (as a
 * page's links are), and helpers that read the hidden fields of a page and submit its form.
 * Works against `h.request` (in process) and against a real server through `fetch`.
 */
export type Fetcher = (url: string, init?: RequestInit) => Promise<Response>;

interface StoredCookie {
  host: string;
  name: string;
  value: string;
  path: string;
  attributes: string;
}

export class FormDriver {
  readonly jar: StoredCookie[] = [];
  private current: string | undefined;

  constructor(
    private readonly fetcher: Fetcher,
    private readonly base: string,
  ) {}

  private absolute(url: string): URL {
    const u = new URL(url, this.current ?? this.base);
    this.current = u.toString();
    return u;
  }

  cookieHeader(url: URL): string | undefined {
    const p = url.pathname;
    const matching = this.jar.filter((c) => c.host === url.host && (p === c.path || p.startsWith(c.path.endsWith('/') ? c.path : c.path + '/')));
    return matching.length ? matching.map((c) => `${c.name}=${c.value}`).join('; ') : undefined;
  }

  private remember(url: URL, res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';').map((s) => s.trim());
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      const path = attrs.find((a) => /^path=/i.test(a))?.slice(5) ?? '/';
      const i = this.jar.findIndex((c) => c.host === url.host && c.name === name && c.path === path);
      const maxAge = attrs.find((a) => /^max-age=/i.test(a));
      if (i >= 0) this.jar.splice(i, 1);
      if (!maxAge || Number(maxAge.slice(8)) > 0) this.jar.push({ host: url.host, name, value, path, attributes: line });
    }
  }

  async get(url: string, headers: Record<string, string> = {}): Promise<Response> {
    const u = this.absolute(url);
    const cookie = this.cookieHeader(u);
    const res = await this.fetcher(u.toString(), { redirect: 'manual', headers: { ...headers, ...(cookie ? { cookie } : {}) } });
    this.remember(u, res);
    return res;
  }

  async post(url: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
    const u = this.absolute(url);
    const cookie = this.cookieHeader(u);
    const res = await this.fetcher(u.toString(), {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers, ...(cookie ? { cookie } : {}) },
      body: new URLSearchParams(fields).toString(),
    });
    this.remember(u, res);
    return res;
  }

  /** Submits the page's form with its hidden fields plus `fields`. */
  async submit(page: string, fields: Record<string, string>): Promise<Response> {
    const form = parseForm(page);
    return this.post(form.action, { ...form.hidden, ...fields });
  }

  /** GET authorize, then the sign-in form; returns the answer to the sign-in post. */
  async signIn(authorizeUrl: string, email: string, password: string): Promise<Response> {
    const page = await this.get(authorizeUrl);
    if (page.status !== 200) throw new Error(`expected the sign-in page, got ${page.status} ${page.headers.get('location') ?? ''}`);
    return this.submit(await page.text(), { email, password });
  }
}

export function parseForm(page: string): { action: string; hidden: Record<string, string> } {
  const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
  if (!action) throw new Error('page has no form');
  const hidden: Record<string, string> = {};
  for (const m of page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) hidden[m[1]] = unescapeHtml(m[2]);
  return { action: unescapeHtml(action), hidden };
}

function unescapeHtml(s: string): string {
  return s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/** The query of a redirect's Location as a plain object. */
export function redirectParams(res: Response): Record<string, string> {
  const loc = res.headers.get('location');
  if (!loc) throw new Error(`expected a redirect, got ${res.status}`);
  return Object.fromEntries(new URL(loc).searchParams);
}
