import type { NavEntry, PageRoute } from '../registry';

export const appsRoutes: PageRoute[] = [];
export const appsNav: NavEntry[] = [];
