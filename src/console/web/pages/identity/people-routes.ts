import type { NavEntry, PageRoute } from '../registry';

export const peopleRoutes: PageRoute[] = [];
export const peopleNav: NavEntry[] = [];
