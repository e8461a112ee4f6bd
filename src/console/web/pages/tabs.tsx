import { Link, href } from '../router';

/** Sub-navigation of one object (a tenant, an environment): links to its pages, the current one marked. */
export function Tabs(props: { label: string; base: string; current: string; tabs: { label: string; path: string }[] }) {
  // The tab a page belongs to: the longest tab path that is the page's or a prefix of it (an app's page is under Apps).
  const owner = props.tabs
    .map((t) => `${props.base}${t.path}`)
    .filter((target) => props.current === target || props.current.startsWith(`${target}/`))
    .sort((a, b) => b.length - a.length)[0];
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
