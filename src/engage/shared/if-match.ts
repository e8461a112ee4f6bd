import { T } from '../../platform/http/schema';

/**
 * Optimistic concurrency on the engagement administration API for definitions without versions
 * (subscription lists, push channels): the ETag is the definitions revision of the thing's last
 * change (unique per environment, it moves on with every write), quoted; an edit or a deletion
 * takes it back in `If-Match` (RFC 9110 §13.1.1: `*` or none is unconditional) and answers 409
 * `<thing>_version_conflict` when the thing moved on. Flags, in-app messages and automations do
 * the same with their versions (docs/decisions.md "If-Match on lists and push channels").
 */
export const revisionIfMatch = (thing: string, code: string) => ({
  'If-Match': {
    schema: T.String({ pattern: '^(\\*|"[1-9][0-9]{0,14}")$', description: '"<revision>" (the ETag of a read), or *' }),
    description: `apply only while the ${thing} is at this revision (409 ${code} otherwise)`,
  },
});

export const revisionETag = (thing: string) => ({ ETag: `the ${thing}’s revision, quoted: send it back in If-Match` });

/** `If-Match: "7"` → 7; `*` or none → no condition. */
export const expectedRevisionOf = (h: string | undefined): number | undefined => (h === undefined || h === '*' ? undefined : Number(h.slice(1, -1)));

/** The ETag value of a revision. */
export const etagOf = (revision: number) => `"${revision}"`;
