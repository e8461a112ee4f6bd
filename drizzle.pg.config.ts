import { defineConfig } from 'drizzle-kit';

// PostgreSQL migrations (issue 9): `npx drizzle-kit generate --config drizzle.pg.config.ts`.
// Hand-written SQL (the catalogue triggers) goes in custom migrations:
// `npx drizzle-kit generate --config drizzle.pg.config.ts --custom --name <name>`.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/schema-pg/index.ts',
  out: './migrations/pg',
});
