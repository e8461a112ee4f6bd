// A loopback APNs for benchmarks, in a worker thread so it does not share the load generator's
// event loop: HTTP/2 over TLS, checks each distinct provider token's ES256 signature once (as
// APNs caches a validated token), the topic and the payload size, answers 200 and counts
// answered notifications by apns-id. `hold` keeps answers back until `release`.
import http2 from 'node:http2';
import { createPublicKey, verify } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';

const { key, cert, publicPem, topic, counter } = workerData;
const answered = new Int32Array(counter);
const publicKey = createPublicKey(publicPem);
const good = new Set();
const seen = new Map();
let holding = false;
const held = [];

function tokenOk(auth) {
  if (good.has(auth)) return true;
  const [h, c, s] = String(auth).slice('bearer '.length).split('.');
  if (!s || !verify('sha256', Buffer.from(`${h}.${c}`), { key: publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(s, 'base64url'))) return false;
  good.add(auth);
  return true;
}

const server = http2.createSecureServer({ key, cert, settings: { maxConcurrentStreams: 10_000 } });
server.on('stream', (stream, headers) => {
  let size = 0;
  stream.on('data', (c) => (size += c.length));
  stream.on('error', () => undefined);
  stream.on('end', () => {
    const answer = () => {
      if (stream.destroyed) return;
      const id = headers['apns-id'];
      const status = !tokenOk(headers.authorization) ? 403 : headers['apns-topic'] !== topic ? 400 : size > 4096 ? 413 : 200;
      stream.respond({ ':status': status, 'apns-id': id });
      stream.end();
      if (status === 200) {
        seen.set(id, (seen.get(id) ?? 0) + 1);
        Atomics.add(answered, 0, 1);
      }
    };
    if (holding) held.push(answer);
    else answer();
  });
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
parentPort.on('message', (m) => {
  if (m === 'hold') holding = true;
  if (m === 'release') {
    holding = false;
    for (const a of held.splice(0)) a();
  }
  if (m === 'reset') {
    seen.clear();
    Atomics.store(answered, 0, 0);
  }
  if (m === 'duplicates') parentPort.postMessage({ duplicates: [...seen.values()].filter((n) => n > 1).length, distinct: seen.size });
});
