import { Link, href } from '../router';

/** Sub-navigation of one object (a tenant, an environment): links to its pages, the current one marked. */
export function Tabs(props: { label: string; base: string; current: string; tabs: { label: string; path: string }[] }) {
  return (
    <nav class="tabs" aria-label={props.label}>
      <ul>
        {props.tabs.map((t) => {
          const target = `${props.base}${t.path}`;
          return (
            <li key={t.path}>
              <Link href={href(target)} aria-current={props.current === target ? 'page' : undefined}>
                {t.label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
