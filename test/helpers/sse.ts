/**
 * Reads a Server-Sent Events body block by block (a block ends with a blank line), with a
 * deadline per read: `next` resolves to the block's text, 'closed' when the stream ended, or
 * 'timeout' (the read in flight is kept for the next call, so nothing is lost).
 */
export class EventReader {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private buffer = '';
  private pending: ReturnType<ReadableStreamDefaultReader<Uint8Array>["read"]> | undefined;
  private ended = false;

  constructor(body: ReadableStream<Uint8Array> | null) {
    if (!body) throw new Error('no body');
    this.reader = body.getReader();
  }

  async next(ms = 1_000): Promise<string | 'closed' | 'timeout'> {
    const deadline = Date.now() + ms;
    for (;;) {
      const at = this.buffer.indexOf('\n\n');
      if (at >= 0) {
        const block = this.buffer.slice(0, at);
        this.buffer = this.buffer.slice(at + 2);
        return block;
      }
      if (this.ended) return 'closed';
      const left = deadline - Date.now();
      if (left <= 0) return 'timeout';
      this.pending ??= this.reader.read();
      let timer: NodeJS.Timeout | undefined;
      const r = await Promise.race([this.pending, new Promise<'timeout'>((res) => (timer = setTimeout(() => res('timeout'), left)))]);
      clearTimeout(timer);
      if (r === 'timeout') return 'timeout';
      this.pending = undefined;
      if (r.done) this.ended = true;
      else this.buffer += this.decoder.decode(r.value, { stream: true });
    }
  }

  /** The next block that is not a comment (heartbeats skipped). */
  async nextEvent(ms = 1_000): Promise<string | 'closed' | 'timeout'> {
    const deadline = Date.now() + ms;
    for (;;) {
      const b = await this.next(Math.max(0, deadline - Date.now()));
      if (b === 'closed' || b === 'timeout' || !b.split('\n').every((l) => l.startsWith(':'))) return b;
    }
  }

  async cancel(): Promise<void> {
    await this.reader.cancel().catch(() => {});
  }
}

export const SYNC_EVENT = 'event: sync\ndata: {}';
