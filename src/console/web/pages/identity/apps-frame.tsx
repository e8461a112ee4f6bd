import type { ComponentChildren } from 'preact';
import { useCall } from '../../ui/data';
import { ErrorBox } from '../../ui/feedback';
import { PageHeader } from '../../ui/layout';
import { TenantTabs } from './tenant-tabs';
import type { Tenant } from './tenants';

/** The tenant of a tenant page (for its slug in titles and crumbs). */
export const useTenant = (tenantId: string) => useCall<Tenant, 'GET /identity/admin/tenants/{tenantId}'>('GET /identity/admin/tenants/{tenantId}', { params: { tenantId } });

/**
 * The frame of a tenant's clients, resources, credentials, signing keys and directory pages:
 * the heading names the tenant, crumbs lead back to it, and its tabs follow.
 */
export function TenantFrame(props: { tenantId: string; title: string; children: ComponentChildren; actions?: ComponentChildren; crumbs?: { label: string; path: string }[] }) {
  const { data: t, error } = useTenant(props.tenantId);
  const base = `/identity/tenants/${encodeURIComponent(props.tenantId)}`;
  return (
    <>
      <PageHeader
        title={t ? `${props.title} · ${t.slug}` : props.title}
        crumbs={[{ label: 'Tenants', path: '/identity/tenants' }, { label: t ? t.slug : 'Tenant', path: base }, ...(props.crumbs ?? [])]}
      >
        {props.actions}
      </PageHeader>
      <TenantTabs tenantId={props.tenantId} />
      {error && <ErrorBox error={error} />}
      {props.children}
    </>
  );
}

/** Lines of a textarea (blank lines and surrounding spaces dropped). */
export const lines = (text: string) => text.split('\n').map((l) => l.trim()).filter(Boolean);
/** Words of a space-separated input (scopes). */
export const words = (text: string) => text.split(/[\s,]+/).filter(Boolean);
/** A date and time as the person's browser writes it; an em dash for none. */
/** Kept for the pages that import it from here (the directory tab). */
export { when } from '../../ui/format';
