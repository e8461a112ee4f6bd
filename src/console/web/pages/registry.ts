import type { ComponentChildren } from 'preact';

/** One page of the console: its path pattern under the base, its title, how it renders. */
export interface PageRoute {
  pattern: string;
  title: (params: Record<string, string>) => string;
  render: (params: Record<string, string>) => ComponentChildren;
}

/** An entry of the side navigation. */
export interface NavEntry {
  section: 'Identity' | 'Engagement';
  label: string;
  path: string;
}
