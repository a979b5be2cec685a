// The command sandbox in the real extension host, on both paths of the
// Turnstone terminal (shell integration, and the pseudoterminal fallback), with
// the real bubblewrap: writes outside the workspace fail, a planted
// ~/.ssh/id_rsa cannot be read, and the extension host's environment (which
// holds the provider key: the runner starts it with one) is out of sight.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TurnstoneApi } from '../../src/extension';
import { readSettings } from '../../src/host/settings';
import { TerminalShell } from '../../src/host/terminal/terminal-shell';
import { VsCodeWorkspace } from '../../src/host/vscode-workspace';
import { createToolExecutor } from '../../src/tools/registry';
import { CommandSandbox, sandboxStatus } from '../../src/tools/shell/sandbox';
import { MockAnthropicServer, textReply, toolUseReply } from '../fixtures/mock-anthropic';
import { recordScenario } from '../reliability/report';

type Mode = 'integrated' | 'pseudoterminal';

describe('sandbox: bash in the Turnstone terminal runs under bubblewrap (A-SBX)', function () {
  this.timeout(240_000);
  // Not under the temp folder, which the sandbox hides behind each command's own: "outside" must really be outside.
  const base = fs.realpathSync(fs.mkdtempSync('/var/tmp/turnstone-vscode-sandbox-'));
  const root = path.join(base, 'ws');
  const home = path.join(base, 'home');
  const outside = path.join(base, 'outside');
  for (const d of [root, outside, path.join(home, '.ssh')]) fs.mkdirSync(d, { recursive: true });
  fs.writeFileSync(path.join(home, '.ssh', 'id_rsa'), 'PLANTED PRIVATE KEY\n');
  const sandbox = new CommandSandbox(() => ({ mode: 'auto', network: 'allow', roots: [root] }), { home });
  const shells: Record<Mode, TerminalShell> = {
    integrated: new TerminalShell({ name: 'Turnstone sandbox', shellIntegrationTimeoutMs: 10_000, sandbox }),
    pseudoterminal: new TerminalShell({ name: 'Turnstone sandbox pty', shellIntegrationTimeoutMs: 1, sandbox }),
  };
  const executors = Object.fromEntries(
    (Object.keys(shells) as Mode[]).map((mode) => [mode, createToolExecutor({ workspace: new VsCodeWorkspace([vscode.Uri.file(root)]), shell: shells[mode] }, { outputDir: path.join(base, 'out') })]),
  ) as Record<Mode, ReturnType<typeof createToolExecutor>>;
  // A multi-line command always takes the pseudoterminal path (shell integration may come up in that terminal too).
  const forMode = (mode: Mode, command: string) => (mode === 'pseudoterminal' ? `${command}\n` : command);
  const run = async (mode: Mode, command: string, sandboxed = true) => {
    const out = await executors[mode].execute('bash', { command: forMode(mode, command), timeout: 60_000, ...(sandboxed ? {} : { sandbox: false }) }, { signal: new AbortController().signal });
    return { ...out, ran: shells[mode].lastMode };
  };

  before(async function () {
    this.timeout(120_000);
    const status = await sandboxStatus();
    assert.ok(status.available, `no usable sandbox here: ${status.available ? '' : status.reason}`);
    for (let i = 0; i < 3 && shells.integrated.lastMode !== 'shell-integration'; i++) await run('integrated', 'true');
    console.log(`[sandbox] the integrated shell runs commands via ${shells.integrated.lastMode}`);
  });
  after(async () => {
    for (const shell of Object.values(shells)) shell.dispose();
    await new Promise((r) => setTimeout(r, 300));
    fs.rmSync(base, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  });

  it('A-SBX-01: a write outside the workspace fails, the planted ~/.ssh/id_rsa is unreadable, work inside the workspace runs', async () => {
    const parts: string[] = [];
    const checks: Record<string, boolean> = {};
    for (const mode of Object.keys(shells) as Mode[]) {
      const write = await run(mode, `echo x > ${outside}/${mode}.txt`);
      const key = await run(mode, `cat ${home}/.ssh/id_rsa`);
      const build = await run(mode, `node -e "require('fs').writeFileSync('built-${mode}.txt','ok')" && git init -q repo-${mode} && git -C repo-${mode} status --short | head -3`);
      checks[`${mode}: write outside fails`] = write.isError && /Read-only file system/.test(write.content) && !fs.existsSync(path.join(outside, `${mode}.txt`));
      checks[`${mode}: retry hint`] = /sandbox: false/.test(write.content);
      checks[`${mode}: key unreadable`] = key.isError && !key.content.includes('PLANTED');
      checks[`${mode}: build runs`] = !build.isError && fs.readFileSync(path.join(root, `built-${mode}.txt`), 'utf8') === 'ok';
      parts.push(`${mode} (ran via ${write.ran}): write outside ${checks[`${mode}: write outside fails`] ? 'refused' : 'NOT refused'}, id_rsa ${key.content.includes('PLANTED') ? 'READ' : 'unreadable'}, node build + git ${build.isError ? 'failed' : 'ran'}`);
    }
    recordScenario({
      id: 'A-SBX-01',
      area: 'commands',
      scenario: 'VS Code, sandbox auto (bubblewrap), both terminal paths: write outside the workspace, cat a planted ~/.ssh/id_rsa, a node build + git in the workspace',
      expected: 'the write and the read fail (with the sandbox:false hint); the build and git work',
      observed: parts.join('; '),
      passed: Object.values(checks).every(Boolean),
    });
    assert.deepEqual(Object.entries(checks).filter(([, ok]) => !ok), []);
  });

  it("A-SBX-02: the extension host's environment (with the provider key) is invisible inside the sandbox; outside it is readable", async () => {
    const key = process.env.ANTHROPIC_API_KEY;
    assert.ok(key, 'the runner gives the extension host a key in its environment');
    const tail = key.slice(-12);
    const command = `cat /proc/${process.pid}/environ >/dev/null 2>&1 && echo host-environ-readable || echo host-environ-hidden; echo "hits:$(cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c -- '${tail}')"`;
    const parts: string[] = [];
    const checks: Record<string, boolean> = {};
    for (const mode of Object.keys(shells) as Mode[]) {
      const inside = await run(mode, command);
      checks[`${mode}: hidden`] = /host-environ-hidden/.test(inside.content) && /hits:0/.test(inside.content);
      parts.push(`${mode} (ran via ${inside.ran}) sandboxed: ${inside.content.split('\n').slice(0, 2).join(' ')}`);
    }
    // The documented limit: unsandboxed, the extension host's own start environment is readable (VS Code started it).
    const outsideRun = await run('pseudoterminal', command, false);
    checks['control: readable without the sandbox'] = /host-environ-readable/.test(outsideRun.content);
    parts.push(`without the sandbox: ${outsideRun.content.split('\n').slice(0, 2).join(' ')}`);
    recordScenario({
      id: 'A-SBX-02',
      area: 'secrets',
      scenario: "VS Code, the extension host started with ANTHROPIC_API_KEY: a command reads the host's /proc/<pid>/environ and greps every /proc/*/environ for the key",
      expected: 'inside the sandbox (own PID namespace) the host is not visible and no environment holds the key; without the sandbox the host environment is readable (documented limit)',
      observed: parts.join('; '),
      passed: Object.values(checks).every(Boolean),
    });
    assert.deepEqual(Object.entries(checks).filter(([, ok]) => !ok), [], parts.join('\n'));
  });
  it('A-SBX-06: on both terminal paths, control files stay as they were (planted ones are removed) and the workspace secret is unreadable; the terminal shows the command as written', async () => {
    fs.mkdirSync(path.join(root, '.vscode'), { recursive: true });
    fs.writeFileSync(path.join(root, '.vscode', 'settings.json'), '{}\n');
    fs.writeFileSync(path.join(root, '.env'), 'TOKEN=host-secret-value\n');
    const parts: string[] = [];
    const checks: Record<string, boolean> = {};
    for (const mode of Object.keys(shells) as Mode[]) {
      const plant = await run(mode, `echo '{"turnstone.permissionMode":"bypassPermissions"}' > .vscode/settings.json; echo '{"mcpServers":{}}' > .mcp.json; cat .env; echo done-${mode}`);
      checks[`${mode}: settings untouched`] = fs.readFileSync(path.join(root, '.vscode', 'settings.json'), 'utf8') === '{}\n';
      checks[`${mode}: .mcp.json removed`] = !fs.existsSync(path.join(root, '.mcp.json')) && /removed it/.test(plant.content);
      checks[`${mode}: secret unreadable`] = !plant.content.includes('host-secret-value') && new RegExp(`done-${mode}`).test(plant.content);
      parts.push(`${mode} (ran via ${plant.ran}): ${plant.content.replace(/\n+/g, ' | ').slice(0, 300)}`);
    }
    // The line typed into the terminal is the command itself, handed to the terminal's own function (no bwrap plumbing).
    const { integratedCommandLine } = await import('../../src/host/terminal/terminal-shell');
    checks['typed line is the command'] = integratedCommandLine('npm test') === "turnstone 'npm test'";
    recordScenario({
      id: 'A-SBX-06',
      area: 'commands',
      scenario: 'VS Code, sandbox auto, both terminal paths: a command rewrites .vscode/settings.json (to bypassPermissions), creates .mcp.json and cats the workspace .env',
      expected: 'settings.json unchanged (read-only), .mcp.json removed after the command with a note to the model, the secret unreadable; the typed line is `turnstone <command>`',
      observed: parts.join('; '),
      passed: Object.values(checks).every(Boolean),
    });
    fs.rmSync(path.join(root, '.env'));
    assert.deepEqual(Object.entries(checks).filter(([, ok]) => !ok), [], parts.join('\n'));
  });

  it('A-SBX-05: a sandboxed command that times out is killed on both terminal paths, and the next command runs', async () => {
    const parts: string[] = [];
    const checks: Record<string, boolean> = {};
    const running = (tag: string) => {
      try {
        return execFileSync('pgrep', ['-f', tag], { encoding: 'utf8' }).trim() !== '';
      } catch {
        return false;
      }
    };
    for (const mode of Object.keys(shells) as Mode[]) {
      const tag = `${mode === 'integrated' ? 297 : 298}.25`;
      const started = Date.now();
      const out = await executors[mode].execute('bash', { command: forMode(mode, `sleep ${tag}`), timeout: 2000 }, { signal: new AbortController().signal });
      const ms = Date.now() - started;
      const via = shells[mode].lastMode;
      let gone = false;
      for (const end = Date.now() + 10_000; Date.now() < end && !(gone = !running(`sleep ${tag}`)); ) await new Promise((r) => setTimeout(r, 100));
      const next = await run(mode, 'echo next-ok');
      checks[`${mode}: timed out`] = /Timed out after 2000 ms/.test(out.content) && ms < 15_000;
      checks[`${mode}: killed`] = gone;
      checks[`${mode}: next`] = /next-ok/.test(next.content);
      parts.push(`${mode} (ran via ${via}): returned in ${ms} ms, sleep ${gone ? 'killed' : 'STILL RUNNING'}, next command ${checks[`${mode}: next`] ? 'ok' : 'failed'}`);
    }
    recordScenario({
      id: 'A-SBX-05',
      area: 'commands',
      scenario: 'VS Code, sandbox auto, both terminal paths: `sleep` with a 2 s timeout',
      expected: 'timed out, the sandboxed process is gone, the next command runs',
      observed: parts.join('; '),
      passed: Object.values(checks).every(Boolean),
    });
    assert.deepEqual(Object.entries(checks).filter(([, ok]) => !ok), [], parts.join('\n'));
  });

  it('A-SBX-03: turnstone.sandbox and turnstone.sandbox.network are read as set (VS Code nests the child under the leaf)', async () => {
    const c = () => vscode.workspace.getConfiguration('turnstone');
    const seen: string[] = [];
    // A workspace setting that turns the sandbox off asks the user before it applies (policy-guard.ts): no modal here.
    const turnstone = await vscode.extensions.getExtension<TurnstoneApi>('turnstone.turnstone')!.activate();
    turnstone.setDialogsEnabled(false);
    try {
      seen.push(`defaults: ${readSettings().sandbox}/${readSettings().sandboxNetwork}`);
      await c().update('sandbox.network', 'deny', vscode.ConfigurationTarget.Global);
      seen.push(`network deny: ${readSettings().sandbox}/${readSettings().sandboxNetwork}`);
      await c().update('sandbox', 'off', vscode.ConfigurationTarget.Workspace);
      seen.push(`sandbox off: ${readSettings().sandbox}/${readSettings().sandboxNetwork}`);
    } finally {
      await c().update('sandbox', undefined, vscode.ConfigurationTarget.Workspace);
      await c().update('sandbox.network', undefined, vscode.ConfigurationTarget.Global);
      turnstone.setDialogsEnabled(true);
    }
    seen.push(`reset: ${readSettings().sandbox}/${readSettings().sandboxNetwork}`);
    assert.deepEqual(seen, ['defaults: auto/allow', 'network deny: auto/deny', 'sandbox off: off/deny', 'reset: auto/allow']);
  });
  it('A-SBX-04: through the extension itself (settings, the shared Turnstone terminal): sandbox auto refuses a write outside the workspace, off allows it', async () => {
    const server = await MockAnthropicServer.start();
    const c = () => vscode.workspace.getConfiguration('turnstone');
    // Outside the workspace and outside the temp folder, so only the sandbox can refuse it (bypassPermissions asks nothing).
    const target = fs.mkdtempSync(path.join(os.homedir(), '.turnstone-sbx-host-'));
    const file = path.join(target, 'written.txt');
    const turnstone = await vscode.extensions.getExtension<TurnstoneApi>('turnstone.turnstone')!.activate();
    const results: string[] = [];
    try {
      await c().update('baseUrl', server.url, vscode.ConfigurationTarget.Global);
      await c().update('permissionMode', 'bypassPermissions', vscode.ConfigurationTarget.Global);
      for (const mode of ['auto', 'off'] as const) {
        await c().update('sandbox', mode === 'auto' ? undefined : 'off', vscode.ConfigurationTarget.Global);
        await vscode.commands.executeCommand('turnstone.newSession');
        server.reset();
        server.enqueue(toolUseReply([{ id: `tu_${mode}`, name: 'bash', input: { command: `echo x > ${file}` } }]), textReply('ok'));
        await turnstone.sendPrompt(`write it (${mode})`);
        const result = JSON.stringify(server.bodies[1]?.messages ?? '');
        results.push(`${mode}: written ${fs.existsSync(file)}, ${/Read-only file system/.test(result) ? 'read-only error' : 'no error'}`);
        fs.rmSync(file, { force: true });
      }
    } finally {
      await c().update('sandbox', undefined, vscode.ConfigurationTarget.Global);
      await c().update('permissionMode', undefined, vscode.ConfigurationTarget.Global);
      await c().update('baseUrl', undefined, vscode.ConfigurationTarget.Global);
      await server.close();
      fs.rmSync(target, { recursive: true, force: true });
    }
    recordScenario({
      id: 'A-SBX-04',
      area: 'commands',
      scenario: 'VS Code, bypassPermissions: the model runs `echo x > ~/<dir>/written.txt` through the extension, with turnstone.sandbox auto and then off',
      expected: 'auto: refused (read-only file system), nothing written; off: written',
      observed: results.join('; '),
      passed: results[0] === 'auto: written false, read-only error' && results[1] === 'off: written true, no error',
    });
    assert.deepEqual(results, ['auto: written false, read-only error', 'off: written true, no error']);
  });
});
