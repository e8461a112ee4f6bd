import type { NavEntry, PageRoute } from '../registry';

export const environmentRoutes: PageRoute[] = [];
export const environmentNav: NavEntry[] = [];
