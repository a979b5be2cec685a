// One HTTP(S) GET for web_fetch, with the network rules around it: the host
// name is resolved once and the connection goes to exactly the address that
// was checked (Node's `lookup` hook), so a DNS answer that changes between
// check and connect (rebinding) cannot slip a private address in; every
// redirect hop is checked the same way. Size and time limits abort the
// transfer; no cookies are kept or sent. A compressed body (gzip, deflate, br)
// is unpacked as it streams, and the size limit holds for what it unpacks to
// as well as for what crossed the wire, so a small bomb cannot fill memory.
import * as dns from 'node:dns';
import * as http from 'node:http';
import * as https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { type Readable, Transform, type TransformCallback } from 'node:stream';
import * as zlib from 'node:zlib';
import { AbortedError } from '../../runtime/cancellation';
import { ToolError } from '../errors';
import { formatBytes } from '../files/text';
import { refusedAddress } from './addresses';

export interface HttpGetOptions {
  signal: AbortSignal;
  /** Bytes of body read before the transfer is aborted. */
  maxBytes: number;
  /** Whole request, redirects included. */
  timeoutMs: number;
  /**
   * The caller's own deadline, when its time covers more than the transfer
   * (web_fetch converts the page under the same one): used instead of a timer
   * of `timeoutMs`, which then only names the limit in the message.
   */
  deadline?: AbortSignal;
  maxRedirects: number;
  allowPrivateNetwork: boolean;
  userAgent: string;
  /** Resolves a host name to its addresses (tests stand in a resolver that lies). Default: the system resolver. */
  resolve?: (hostname: string) => Promise<string[]>;
  /** Why an address is refused, or undefined (tests narrow it). Default: refusedAddress. */
  refused?: (ip: string) => string | undefined;
}

/** What web_fetch runs with, from the executor's options (the setting, the limits, the User-Agent). */
export type WebFetchConfig = Omit<HttpGetOptions, 'signal' | 'deadline'>;

export interface HttpResponse {
  /** The URL the body came from (after same-site redirects). */
  url: string;
  status: number;
  statusText: string;
  contentType: string;
  body: Buffer;
  /** A redirect to another site, not followed: the model fetches it itself, so it is asked about. */
  redirectedTo?: string;
}

const systemResolve = async (hostname: string): Promise<string[]> => (await dns.promises.lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

/** Same site: the same host, or one that only adds or drops a leading `www.` (http → https allowed). */
function sameSite(from: URL, to: URL): boolean {
  const bare = (h: string) => h.toLowerCase().replace(/^www\./, '');
  return bare(from.hostname) === bare(to.hostname);
}

/** Rejects with a ToolError of kind `network_refused` naming the host and the address. */
function refusal(host: string, ip: string, why: string): ToolError {
  const shown = host === ip ? ip : `${host} (${ip})`;
  return new ToolError(
    'network_refused',
    `Refused to connect to ${shown}: it is ${why}. web_fetch only reaches public internet addresses; the user can allow local and private ones with the setting turnstone.webFetch.allowPrivateNetwork.`,
  );
}

export async function httpGet(start: URL, options: HttpGetOptions): Promise<HttpResponse> {
  const own = options.deadline ? undefined : new AbortController();
  const timer = own && setTimeout(() => own.abort(), options.timeoutMs);
  const deadline = options.deadline ?? own!.signal;
  const signal = AbortSignal.any([options.signal, deadline]);
  try {
    let url = start;
    for (let hop = 0; ; hop++) {
      const response = await requestOnce(url, signal, options).catch((error: unknown) => {
        if (options.signal.aborted) throw new AbortedError();
        if (deadline.aborted) throw new ToolError('timeout', `${start.href} did not finish within ${options.timeoutMs / 1000} s; stopped waiting.`);
        if (error instanceof ToolError) throw error;
        const code = (error as NodeJS.ErrnoException).code;
        throw new ToolError('network', `Could not fetch ${url.href}: ${code ? `${code} ` : ''}${(error as Error).message ?? String(error)}`);
      });
      if (!('location' in response)) return response;
      const next = new URL(response.location, url);
      if (next.protocol !== 'http:' && next.protocol !== 'https:') throw new ToolError('bad_redirect', `${url.href} redirects to ${next.href}, which is not an http(s) URL; not followed.`);
      if (!sameSite(url, next)) return { url: url.href, status: response.status, statusText: '', contentType: '', body: Buffer.alloc(0), redirectedTo: next.href };
      if (hop >= options.maxRedirects) throw new ToolError('too_many_redirects', `${start.href} redirected more than ${options.maxRedirects} times; stopped at ${next.href}.`);
      url = next;
    }
  } finally {
    clearTimeout(timer);
  }
}

type Hop = HttpResponse | { status: number; location: string };

function requestOnce(url: URL, signal: AbortSignal, options: HttpGetOptions): Promise<Hop> {
  const refused = options.allowPrivateNetwork ? () => undefined : (options.refused ?? refusedAddress);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // An address in the URL is never looked up: check it here.
  if (isIP(host)) {
    const why = refused(host);
    if (why) return Promise.reject(refusal(host, host, why));
  }
  const resolve = options.resolve ?? systemResolve;
  const lookup: LookupFunction = (hostname, opts, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const checked = addresses.map((ip) => ({ ip, why: refused(ip) }));
        const bad = checked.find((a) => a.why);
        // Any refused answer refuses the name: a name that resolves to both kinds is not trusted with either.
        if (bad || checked.length === 0) {
          callback(bad ? refusal(hostname, bad.ip, bad.why!) : new ToolError('network', `${hostname} has no address`), '', 4);
          return;
        }
        const family = (ip: string) => (isIP(ip) === 6 ? 6 : 4);
        if (opts.all) callback(null, checked.map(({ ip }) => ({ address: ip, family: family(ip) })) as never);
        else callback(null, checked[0]!.ip, family(checked[0]!.ip));
      },
      (error: unknown) => callback(error as NodeJS.ErrnoException, '', 4),
    );
  };
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<Hop>((resolvePromise, reject) => {
    const req = client.request(url, {
      method: 'GET',
      lookup,
      signal,
      agent: false,
      headers: {
        'user-agent': options.userAgent,
        accept: 'text/html,application/xhtml+xml,text/markdown;q=0.9,text/plain;q=0.9,application/json;q=0.9,image/*;q=0.8,*/*;q=0.5',
        // Exactly the codings unpackers() undoes; a server that sends another anyway is refused by name there.
        'accept-encoding': ACCEPTED_ENCODINGS,
      },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      // Belt and braces: whatever the lookup did, the peer's address is checked before a byte is read.
      const peer = res.socket.remoteAddress;
      const why = peer ? refused(peer) : undefined;
      if (peer && why) {
        req.destroy();
        reject(refusal(host, peer, why));
        return;
      }
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (status >= 300 && status < 400 && location) {
        res.resume();
        resolvePromise({ status, location });
        return;
      }
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > options.maxBytes) {
        req.destroy();
        reject(tooLarge(url, options.maxBytes, declared));
        return;
      }
      const decoders = unpackers(res.headers['content-encoding']);
      if (typeof decoders === 'string') {
        req.destroy();
        reject(new ToolError('encoding', `web_fetch: the server sent Content-Encoding: ${decoders}, which Turnstone cannot decode (it decodes gzip, deflate and br).`));
        return;
      }
      const chunks: Buffer[] = [];
      // What crosses the wire and what it unpacks to are counted apart: either over the limit stops the transfer.
      let wire = 0;
      let size = 0;
      // Resolved or rejected: nothing after counts.
      let settled = false;
      const fail = (error: Error) => {
        if (settled) return;
        settled = true;
        req.destroy();
        for (const decoder of decoders) decoder.destroy();
        reject(error);
      };
      const finish = () => {
        if (settled) return;
        settled = true;
        resolvePromise({
          url: url.href,
          status,
          statusText: res.statusMessage ?? '',
          contentType: String(res.headers['content-type'] ?? ''),
          body: Buffer.concat(chunks),
        });
      };
      res.on('data', (chunk: Buffer) => {
        wire += chunk.length;
        if (wire > options.maxBytes) fail(tooLarge(url, options.maxBytes));
      });
      let body: Readable = res;
      for (const decoder of decoders) {
        decoder.on('error', (error: Error) => {
          // No bytes at all are an empty body however they claim to be packed (a 204, an empty error page), as in browsers.
          if (wire === 0) finish();
          else fail(new ToolError('encoding', `${url.href}: the server's ${res.headers['content-encoding']} data does not decode (${error.message}).`));
        });
        body = body.pipe(decoder);
      }
      body.on('data', (chunk: Buffer) => {
        if (settled) return;
        size += chunk.length;
        if (size > options.maxBytes) fail(tooLarge(url, options.maxBytes, undefined, decoders.length > 0));
        else chunks.push(chunk);
      });
      res.on('error', reject);
      res.on('close', () => {
        if (!res.complete) reject(new ToolError('network', `the connection to ${url.host} closed before the whole page arrived`));
      });
      body.on('end', finish);
    });
    req.end();
  });
}

function tooLarge(url: URL, max: number, declared?: number, unpacked = false): ToolError {
  const size = declared !== undefined ? `is ${formatBytes(declared)}` : unpacked ? `unpacks to more than ${formatBytes(max)}` : `is larger than ${formatBytes(max)}`;
  return new ToolError('too_large', `${url.href} ${size}, over web_fetch's ${formatBytes(max)} limit; stopped reading it.`);
}

const ACCEPTED_ENCODINGS = 'gzip, deflate, br';

/**
 * The decoders that undo a Content-Encoding, in the order the body goes
 * through them (the header lists the codings in the order they were applied),
 * or the name of the first coding none of them undoes.
 */
function unpackers(header: string | undefined): Transform[] | string {
  const codings = (header ?? '').split(',').map((c) => c.trim().toLowerCase()).filter((c) => c !== '' && c !== 'identity');
  const decoders: Transform[] = [];
  for (const coding of codings.reverse()) {
    if (coding === 'gzip' || coding === 'x-gzip') decoders.push(zlib.createGunzip());
    else if (coding === 'br') decoders.push(zlib.createBrotliDecompress());
    else if (coding === 'deflate') decoders.push(new InflateEither());
    else return coding;
  }
  return decoders;
}

/**
 * HTTP's `deflate` is zlib-wrapped by the standard and raw deflate from many
 * servers; browsers take both, so the first two bytes choose (a zlib header
 * names method 8 and is a multiple of 31).
 */
class InflateEither extends Transform {
  private inner: zlib.Inflate | zlib.InflateRaw | undefined;
  private head: Buffer = Buffer.alloc(0);

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    if (!this.inner) {
      this.head = Buffer.concat([this.head, chunk]);
      if (this.head.length < 2) return done();
      const wrapped = (this.head[0]! & 0x0f) === 8 && ((this.head[0]! << 8) | this.head[1]!) % 31 === 0;
      this.inner = wrapped ? zlib.createInflate() : zlib.createInflateRaw();
      this.inner.on('data', (out: Buffer) => this.push(out));
      this.inner.on('error', (error) => this.destroy(error));
      chunk = this.head;
    }
    this.inner.write(chunk, (error) => done(error ?? undefined));
  }

  override _flush(done: TransformCallback): void {
    if (!this.inner) return done(this.head.length > 0 ? new Error('unexpected end of file') : undefined);
    this.inner.once('end', () => done());
    this.inner.end();
  }

  override _destroy(error: Error | null, done: (error: Error | null) => void): void {
    this.inner?.destroy();
    done(error);
  }
}
