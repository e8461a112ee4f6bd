import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { currentOperator, signOut } from '../auth';
import { Link, href } from '../router';
import type { NavEntry } from '../pages/registry';

/** The frame of every page: a skip link, the header with the operator and sign-out, the navigation, the page. */
export function Layout(props: { nav: NavEntry[]; current: string; title: string; children: ComponentChildren }) {
  const main = useRef<HTMLElement>(null);
  const operator = currentOperator();
  // Each page announces itself: the document title, and focus on the main region after navigation.
  useEffect(() => {
    document.title = `${props.title} · engage console`;
    main.current?.focus({ preventScroll: true });
  }, [props.title]);
  const sections = [...new Set(props.nav.map((n) => n.section))];
  // The entry the page belongs to: the longest navigation path that is a prefix of the page's.
  const active = props.nav
    .filter((n) => props.current === n.path || props.current.startsWith(`${n.path}/`))
    .sort((a, b) => b.path.length - a.path.length)[0]?.path;
  return (
    <div class="shell">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <Link class="brand" href={href('/')}>
          engage console
        </Link>
        <div class="who">
          {operator?.email && <span class="muted">{operator.email}</span>}
          <button type="button" onClick={() => void signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <nav class="side" aria-label="Console">
        {/* Open beside the page on a laptop; a menu to open on a phone, closed again after each navigation. */}
        <details open={!matchMedia('(max-width: 720px)').matches} key={props.current}>
          <summary>Menu</summary>
          {sections.map((section) => (
            <div key={section}>
              <h2 class="nav-section">{section}</h2>
              <ul>
                {props.nav
                  .filter((n) => n.section === section)
                  .map((n) => (
                    <li key={n.path}>
                      <Link href={href(n.path)} aria-current={n.path === active ? 'page' : undefined}>
                        {n.label}
                      </Link>
                    </li>
                  ))}
              </ul>
            </div>
          ))}
        </details>
      </nav>
      <main id="main" ref={main} tabIndex={-1}>
        {props.children}
      </main>
    </div>
  );
}

/** A page's heading and its actions. */
export function PageHeader(props: { title: string; children?: ComponentChildren; crumbs?: { label: string; path: string }[] }) {
  return (
    <div class="page-header">
      {props.crumbs && (
        <nav aria-label="Breadcrumb" class="crumbs">
          <ol>
            {props.crumbs.map((c) => (
              <li key={c.path}>
                <Link href={href(c.path)}>{c.label}</Link>
              </li>
            ))}
          </ol>
        </nav>
      )}
      <h1>{props.title}</h1>
      {props.children && <div class="page-actions">{props.children}</div>}
    </div>
  );
}
