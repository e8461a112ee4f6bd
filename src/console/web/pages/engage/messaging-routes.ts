import type { NavEntry, PageRoute } from '../registry';

export const messagingRoutes: PageRoute[] = [];
export const messagingNav: NavEntry[] = [];
