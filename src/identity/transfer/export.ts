import type { TransferStore } from './store';

/** Users read per query of an export stream: keyset pages, so memory stays constant. */
export const EXPORT_PAGE = 2_000;

/**
 * A tenant's users created up to `asOf`, as NDJSON text (spec 03 "Export record" per line), in
 * chunks of EXPORT_PAGE lines: a stream in constant memory for the CLI's file and the API's
 * download. Each page is one keyset query on (created_at, id) (index users_tenant_created).
 */
export async function* exportNdjson(store: Pick<TransferStore, 'exportAfter'>, tenantId: string, asOf: string): AsyncGenerator<string> {
  let after: { createdAt: string; id: string } | undefined;
  let position = 0;
  for (;;) {
    const rows = await store.exportAfter(tenantId, asOf, after, EXPORT_PAGE);
    if (rows.length === 0) return;
    let text = '';
    for (const u of rows) {
      text += `{"position":${position++},"subject":${JSON.stringify(u.subject)},"email":${JSON.stringify(u.email)},"emailVerified":${u.emailVerified},"status":${JSON.stringify(u.status)},"createdAt":${JSON.stringify(u.createdAt)}}\n`;
    }
    yield text;
    if (rows.length < EXPORT_PAGE) return;
    const last = rows[rows.length - 1];
    after = { createdAt: last.createdAt, id: last.id };
  }
}
