#!/usr/bin/env node
import type { Cluster } from 'node:cluster';
import { buildProgram } from './program';
import { configureUsageErrors, jsonRequested, reportParseFailure } from './cli';

declare const __ENGAGE_VERSION__: string | undefined;
const version = typeof __ENGAGE_VERSION__ !== 'undefined' ? __ENGAGE_VERSION__ : process.env.npm_package_version ?? '0.0.0-dev';

// A worker of `serve --workers` forked by the single executable gets the path it was forked with
// (the executable's, serve-run.ts) once more before its arguments (nodejs/node#62776): drop it.
// (node:cluster is asked only then: it loads child_process, which other starts do without.)
const argv = process.argv[2] === process.execPath && (process.getBuiltinModule('node:cluster') as unknown as Cluster).isWorker ? [...process.argv.slice(0, 2), ...process.argv.slice(3)] : process.argv;

// Only the commands the first argument names, when it names one (program.ts).
const program = buildProgram(version, argv[2]);

// A reader that stops early (`engage users export | head`): stop quietly as a process killed by
// SIGPIPE does (status 141, what a shell reports for it), not with an unhandled EPIPE's stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e;
    process.exit(141);
  });
}

// Usage errors exit 64, and with --json every error is one JSON line on stderr (cmd/cli.ts EXIT).
const json = jsonRequested(argv.slice(2));
configureUsageErrors(program, json);
program.parseAsync(argv).catch((e: unknown) => reportParseFailure(e, json));
