// text/event-stream decoding for both providers. The SDKs send the request and
// raise their typed errors for failed statuses; the 200 body's frames we read
// ourselves, a network chunk at a time. The SDKs' own event iterators stack two
// async generators per event, which costs more than all of our normalisation
// (bench/stream.bench.ts); here a chunk of hundreds of frames costs one await.

export interface SseFrame {
  event: string | null;
  data: string;
}

/** Incremental decoder following the WHATWG rules: bytes in, complete frames out. */
export class SseDecoder {
  private readonly utf8 = new TextDecoder();
  private rest = '';
  private event: string | null = null;
  private data = '';
  private hasData = false;

  /** Appends the frames completed by `chunk` to `out`. */
  push(chunk: Uint8Array, out: SseFrame[]): void {
    // stream: true keeps a multi-byte character split across chunks for the next call.
    let text = this.rest + this.utf8.decode(chunk, { stream: true });
    // A lone trailing CR may be the first half of CRLF: decide once the next chunk is here.
    let held = '';
    if (text.endsWith('\r')) {
      held = '\r';
      text = text.slice(0, -1);
    }
    if (text.includes('\r')) text = text.replace(/\r\n?/g, '\n');
    let start = 0;
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
      this.line(text.slice(start, end), out);
      start = end + 1;
    }
    this.rest = (start === 0 ? text : text.slice(start)) + held;
  }

  /** The body ended: a CR held back as a possible CRLF half was a line end after all. */
  end(out: SseFrame[]): void {
    if (this.rest.endsWith('\r')) this.push(Uint8Array.of(0x0a), out);
  }

  private line(line: string, out: SseFrame[]): void {
    if (line === '') {
      if (this.hasData || this.event !== null) out.push({ event: this.event, data: this.data });
      this.event = null;
      this.data = '';
      this.hasData = false;
      return;
    }
    const colon = line.indexOf(':');
    if (colon === 0) return; // comment
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.charCodeAt(colon + 1) === 0x20 ? line.slice(colon + 2) : line.slice(colon + 1);
    if (field === 'data') {
      this.data = this.hasData ? `${this.data}\n${value}` : value;
      this.hasData = true;
    } else if (field === 'event') {
      this.event = value;
    }
  }
}

/**
 * The frames of a streamed response body, batched per network chunk. Closing the
 * iterator early cancels the body, which releases the connection.
 */
export function sseBatches(response: Response): AsyncIterable<SseFrame[]> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<SseFrame[]> {
      const body = response.body;
      if (!body) throw new TypeError('the streamed response has no body');
      const reader = body.getReader();
      const decoder = new SseDecoder();
      return {
        async next(): Promise<IteratorResult<SseFrame[]>> {
          for (;;) {
            const { done, value } = await reader.read();
            const frames: SseFrame[] = [];
            if (done) {
              decoder.end(frames);
              return frames.length > 0 ? { done: false, value: frames } : { done: true, value: undefined };
            }
            decoder.push(value, frames);
            if (frames.length > 0) return { done: false, value: frames };
          }
        },
        async return(): Promise<IteratorResult<SseFrame[]>> {
          await reader.cancel().catch(() => undefined);
          return { done: true, value: undefined };
        },
      };
    },
  };
}
