#!/usr/bin/env node
/**
 * The web console (issue 25) in Debian's chromium on the built executable: its size on the wire
 * (the shell, script and stylesheet, gzipped as served) against the 250 KB ceiling, and how long
 * the first page takes to become usable on the loopback against the 1 s goal: from navigation
 * start to the page's heading with its data (the tenants table filled), for an operator whose
 * session at the control issuer is alive (the silent renewal of both tokens included), N times.
 *
 * Usage: node build.mjs && node bench/console.mjs [--bin dist/engage] [--runs 20]
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({ options: { bin: { type: 'string', default: path.join(root, 'dist/engage') }, runs: { type: 'string', default: '20' } } });
const dir = mkdtempSync(path.join(tmpdir(), 'engage-bench-console-'));
const data = ['--data-dir', path.join(dir, 'data')];
const port = 18000 + Math.floor(Math.random() * 1000);
const url = `http://127.0.0.1:${port}`;
execFileSync(args.bin, ['init', ...data, '--public-url', url], { stdio: 'ignore' });
execFileSync(args.bin, ['operators', 'create', ...data, '--email', 'bench@example.com', '--password-stdin'], { input: 'correct-horse-battery-9\n', stdio: ['pipe', 'ignore', 'ignore'] });
const server = spawn(args.bin, ['serve', ...data, '--port', String(port), '--log-level', 'warn', '--no-access-log'], { stdio: 'ignore' });
try {
  for (let i = 0; i < 100; i++) {
    if (await fetch(`${url}/readyz`).then((r) => r.ok, () => false)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  // Size as served.
  const shell = await (await fetch(`${url}/console`)).text();
  const files = [...shell.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1]);
  let gzipped = gzipSync(shell).length;
  const sizes = {};
  for (const f of files) {
    const res = await fetch(`${url}${f}`, { headers: { 'Accept-Encoding': 'gzip' } });
    const raw = Buffer.from(await res.arrayBuffer());
    sizes[path.basename(f)] = { bytes: gzipSync(raw).length };
  }
  // fetch() decodes gzip: measure the compressed size of what it decoded, as the server's level 9 does.
  gzipped += Object.values(sizes).reduce((a, s) => a + s.bytes, 0);

  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  const page = await browser.newPage();
  await page.goto(`${url}/console/identity/tenants`);
  await page.getByLabel('Email').fill('bench@example.com');
  await page.getByLabel('Password').fill('correct-horse-battery-9');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('link', { name: 'control' }).waitFor();
  const times = [];
  for (let i = 0; i < Number(args.runs); i++) {
    const t0 = performance.now();
    await page.goto(`${url}/console/identity/tenants`);
    await page.getByRole('link', { name: 'control' }).waitFor();
    times.push(performance.now() - t0);
  }
  await browser.close();
  times.sort((a, b) => a - b);
  const q = (p) => Math.round(times[Math.min(times.length - 1, Math.floor(p * times.length))]);
  console.log(
    JSON.stringify(
      {
        gzippedBytes: gzipped,
        ceilingBytes: 250 * 1024,
        files: sizes,
        firstPageUsableMs: { runs: times.length, median: q(0.5), p90: q(0.9), max: Math.round(times.at(-1)) },
        goalMs: 1000,
        loadAverage: (await import('node:os')).loadavg().map((l) => l.toFixed(2)).join(' '),
      },
      null,
      2,
    ),
  );
} finally {
  server.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 300));
  rmSync(dir, { recursive: true, force: true });
}
