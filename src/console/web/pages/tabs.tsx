import { Link, href } from '../router';

/** Sub-navigation of one object (a tenant, an environment): links to its pages, the current one marked. */
export function Tabs(props: { label: string; base: string; current: string; tabs: { label: string; path: string; also?: string[] }[] }) {
  // The tab a page belongs to: the longest tab path (or path it also owns, as /new-flag for Flags)
  // that is the page's or a prefix of it (an app's page is under Apps).
  const under = (target: string) => props.current === target || props.current.startsWith(`${target}/`);
  const owner = props.tabs
    .flatMap((t) => [t.path, ...(t.also ?? [])].map((p) => ({ target: `${props.base}${t.path}`, length: p.length, matches: under(`${props.base}${p}`) })))
    .filter((c) => c.matches)
    .sort((a, b) => b.length - a.length)[0]?.target;
  return (
    <nav class="tabs" aria-label={props.label}>
      <ul>
        {props.tabs.map((t) => {
          const target = `${props.base}${t.path}`;
          return (
            <li key={t.path}>
              <Link href={href(target)} aria-current={props.current === target ? 'page' : target === owner ? 'true' : undefined}>
                {t.label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
