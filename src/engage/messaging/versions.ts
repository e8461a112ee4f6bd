/**
 * Which version of a template a preview or a test send uses (issue 24 point 4): `draft` (the
 * latest version while it is unpublished), `published` (the version serving sends), `latest`
 * (the draft when there is one, else the published version) or a version number.
 */
import { MessagingErrors } from './errors';
import type { TemplateDefinition } from './render';
import type { MessagingStore, TemplateRow, TemplateVersionRow } from './store';

export type VersionSelector = 'draft' | 'published' | 'latest' | number;

export interface SelectedVersion {
  version: number;
  state: TemplateVersionRow['state'];
  definition: TemplateDefinition;
}

/** The version `selector` names; 404 version_not_found when there is none (no draft, nothing published, no such number). */
export async function selectVersion(s: Pick<MessagingStore, 'version'>, t: TemplateRow, selector: VersionSelector = 'latest'): Promise<SelectedVersion> {
  const n =
    typeof selector === 'number' ? selector
    : selector === 'published' ? (t.publishedVersion === null ? undefined : Number(t.publishedVersion))
    : Number(t.latestVersion);
  const row = n === undefined ? undefined : await s.version(t.id, n);
  if (!row || (selector === 'draft' && row.state !== 'DRAFT')) throw MessagingErrors.versionNotFound(t.key, selector);
  return { version: Number(row.version), state: row.state, definition: JSON.parse(row.definition) as TemplateDefinition };
}

/** A selector from its wire or command-line form: a positive integer, or one of the names. */
export function parseVersionSelector(v: string | number | undefined): VersionSelector | undefined {
  if (v === undefined) return undefined;
  if (typeof v === 'number') return v;
  if (v === 'draft' || v === 'published' || v === 'latest') return v;
  if (/^[1-9][0-9]{0,8}$/.test(v)) return Number(v);
  throw MessagingErrors.invalid('version: must be draft, published, latest or a version number');
}
