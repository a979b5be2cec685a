// A git server over HTTPS on 127.0.0.1 for tests that need what a hosted repository does: git's own smart-HTTP
// backend (`git http-backend`, as CGI) behind a Node https server with a certificate made for the run, answering
// only requests that carry the one Authorization header it is given (401 otherwise, as GitHub answers a private
// repository). It records each request's Authorization header and path, so a test can tell how git authenticated.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { type AddressInfo } from 'node:net';
import * as path from 'node:path';

export interface GitHttpsServer {
  /** `https://127.0.0.1:<port>`: a repository `<root>/<name>` is at `<origin>/<name>`. */
  origin: string;
  /** The certificate to trust (git: GIT_SSL_CAINFO, which wins over any config). */
  caFile: string;
  /** Every request as `<Authorization header or -> <path and query>`. */
  requests: string[];
  close(): Promise<void>;
}

/**
 * Serves the repositories under `root`; `dir` (existing) receives the key and certificate. `redirectTo`: a
 * request for `/moved/<rest>` is answered 301 to `<redirectTo>/<rest>`, as a host answers for a renamed repository.
 */
export async function startGitHttps(root: string, dir: string, authorization: string, redirectTo?: string): Promise<GitHttpsServer> {
  const name = `git-https-${Math.random().toString(36).slice(2)}`;
  const keyFile = path.join(dir, `${name}-key.pem`);
  const caFile = path.join(dir, `${name}-cert.pem`);
  if (!findOnPath('openssl')) throw new Error('openssl is missing (it makes the test server\'s certificate): sudo apt-get install -y openssl');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', caFile, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  const requests: string[] = [];
  const server = createServer({ key: readFileSync(keyFile), cert: readFileSync(caFile) }, (req, res) => {
    requests.push(`${req.headers.authorization ?? '-'} ${req.url ?? ''}`);
    if (redirectTo && req.url?.startsWith('/moved/')) {
      res.writeHead(301, { Location: `${redirectTo}/${req.url.slice('/moved/'.length)}` }).end();
      return;
    }
    if (req.headers.authorization !== authorization) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="test"' }).end();
      return;
    }
    const url = new URL(req.url ?? '/', 'https://127.0.0.1');
    const header = (name: string) => String(req.headers[name] ?? '');
    const cgi = spawn('git', ['http-backend'], {
      env: {
        ...process.env,
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        REQUEST_METHOD: req.method ?? 'GET',
        CONTENT_TYPE: header('content-type'),
        ...(req.headers['content-length'] ? { CONTENT_LENGTH: header('content-length') } : {}),
        HTTP_CONTENT_ENCODING: header('content-encoding'),
        GIT_PROTOCOL: header('git-protocol'),
        REMOTE_USER: 'test',
        REMOTE_ADDR: '127.0.0.1',
      },
    });
    req.pipe(cgi.stdin);
    // CGI output: header lines (a `Status:` among them), a blank line, the body.
    let head: Buffer | undefined = Buffer.alloc(0);
    cgi.stdout.on('data', (chunk: Buffer) => {
      if (!head) {
        res.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      let status = 200;
      for (const line of head.subarray(0, end).toString().split('\r\n')) {
        const colon = line.indexOf(':');
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
        else if (name) res.setHeader(name, value);
      }
      res.writeHead(status);
      res.write(head.subarray(end + 4));
      head = undefined;
    });
    cgi.stdout.on('end', () => res.end());
    cgi.on('error', () => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    caFile,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function findOnPath(program: string): boolean {
  return (process.env.PATH ?? '').split(path.delimiter).some((dir) => dir !== '' && existsSync(path.join(dir, program)));
}
