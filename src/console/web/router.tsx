import type { ComponentChildren, JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { config } from './config';

/**
 * History-API routing under the console's base path: every page has its own URL (bookmarks,
 * reloads, the back button), and the server answers the same shell for all of them.
 */
const listeners = new Set<() => void>();

export function navigate(to: string, opts: { replace?: boolean } = {}): void {
  const url = to.startsWith(config.base) ? to : `${config.base}${to}`;
  if (opts.replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  for (const l of listeners) l();
  window.scrollTo(0, 0);
}

window.addEventListener('popstate', () => {
  for (const l of listeners) l();
});

/** The path below the base (`/identity/tenants`) and the query, re-rendering on navigation. */
export function useRoute(): { path: string; query: URLSearchParams } {
  const [, setTick] = useState(0);
  useEffect(() => {
    const l = () => setTick((n) => n + 1);
    listeners.add(l);
    return () => void listeners.delete(l);
  }, []);
  const path = location.pathname.slice(config.base.length) || '/';
  return { path, query: new URLSearchParams(location.search) };
}

/** `/identity/tenants/:tenantId` against a path: the parameters, or undefined. */
export function match(pattern: string, path: string): Record<string, string> | undefined {
  const p = pattern.split('/');
  const a = path.replace(/\/+$/, '').split('/');
  if (p.length !== a.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    if (p[i].startsWith(':')) {
      // A malformed escape (`%E0`, typed or pasted) matches no page rather than breaking the console.
      const value = decoded(a[i]);
      if (value === undefined) return undefined;
      params[p[i].slice(1)] = value;
    } else if (p[i] !== a[i]) return undefined;
  }
  return params;
}

function decoded(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** A console path with its segments percent-encoded: href('/identity/tenants', id). */
export const href = (...parts: string[]) => `${config.base}${parts.map((p, i) => (i === 0 ? p : `/${encodeURIComponent(p)}`)).join('')}`;

/** A link that navigates inside the console without reloading the page. */
export function Link(props: { href: string; children: ComponentChildren } & Omit<JSX.HTMLAttributes<HTMLAnchorElement>, 'href'>) {
  const { href: to, children, ...rest } = props;
  return (
    <a
      {...rest}
      href={to}
      onClick={(e) => {
        if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </a>
  );
}
