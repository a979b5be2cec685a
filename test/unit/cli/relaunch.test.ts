// The CLI started with a provider key relaunches itself without it (src/cli/relaunch.ts).
// These check the process pair from outside: the worker's and the launcher's
// /proc/<pid>/environ, and that the worker does not outlive a killed launcher.
import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MockAnthropicServer, textReply, toolUseReply } from '../../fixtures/mock-anthropic';
import { runCli } from '../../support/run-cli';
import { isAlive } from '../tools/helpers';

function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

async function until<T>(fn: () => T | undefined, ms: number): Promise<T | undefined> {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v !== undefined || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('CLI: relaunched without the provider key', function () {
  this.timeout(60_000);
  let server: MockAnthropicServer;
  let ws: string;
  const KEY = `sk-ant-relaunch-${Date.now().toString(36)}-canary`;

  beforeEach(async () => {
    server = await MockAnthropicServer.start();
    ws = mkdtempSync(path.join(os.tmpdir(), 'turnstone-relaunch-'));
  });
  afterEach(async () => {
    await server.close();
    rmSync(ws, { recursive: true, force: true });
  });

  it("neither the launcher's nor the worker's /proc/<pid>/environ holds the key, nor (issue 42 item 2) a cloud key or a job token; a SIGKILLed launcher takes the worker with it", async () => {
    const AWS = `aws-secret-${Date.now().toString(36)}-canary`;
    const NPM = `npm-token-${Date.now().toString(36)}-canary`;
    server.enqueue(toolUseReply([{ id: 'tu_sleep', name: 'bash', input: { command: 'sleep 30' } }]), textReply('done'));
    let launcher = 0;
    const run = runCli(['-p', 'wait', '--cwd', ws, '--permission-mode', 'bypassPermissions'], {
      env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: KEY, AWS_SECRET_ACCESS_KEY: AWS, NPM_TOKEN: NPM },
      onSpawn: (child) => {
        launcher = child.pid!;
      },
    });
    // The worker is the launcher's node child; the turn is in its bash tool use once the first request is in.
    const worker = await until(() => (server.requests.length >= 1 ? childrenOf(launcher)[0] : undefined), 20_000);
    assert.ok(worker, 'no worker process appeared');
    const environs = { launcher: readFileSync(`/proc/${launcher}/environ`, 'latin1'), worker: readFileSync(`/proc/${worker}/environ`, 'latin1') };
    process.kill(launcher, 'SIGKILL');
    const result = await run;
    assert.equal(result.signal, 'SIGKILL');
    assert.equal(environs.launcher.includes(KEY), false, 'the key is in the launcher environ');
    assert.equal(environs.worker.includes(KEY), false, 'the key is in the worker environ');
    for (const secret of [AWS, NPM]) for (const [which, text] of Object.entries(environs)) assert.equal(text.includes(secret), false, `${secret} is in the ${which} environ`);
    assert.match(environs.launcher, /ANTHROPIC_API_KEY=x+\0/, 'the launcher entry was overwritten, not missing (the check reads the right process)');
    const gone = await until(() => (isAlive(worker!) ? undefined : true), 5_000);
    assert.ok(gone, `worker ${worker} outlived the killed launcher`);
  });
});
