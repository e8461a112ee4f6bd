import type { Sql } from '../../src/platform/store/sql';

/** Every table of the live database (migrations applied) with its columns in order, on either engine. */
export async function liveTables(sql: Sql): Promise<Map<string, string[]>> {
  const rows =
    sql.dialect === 'sqlite'
      ? await sql.all<{ t: string; c: string }>(
          `SELECT m.name AS t, p.name AS c FROM sqlite_master m, pragma_table_info(m.name) p
           WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' AND m.name NOT LIKE '__drizzle%' ORDER BY m.name, p.cid`,
        )
      : await sql.all<{ t: string; c: string }>(
          `SELECT table_name AS t, column_name AS c FROM information_schema.columns
           WHERE table_schema = current_schema() AND table_name NOT LIKE '__drizzle%' ORDER BY table_name, ordinal_position`,
        );
  const out = new Map<string, string[]>();
  for (const r of rows) out.set(r.t, [...(out.get(r.t) ?? []), r.c]);
  return out;
}
