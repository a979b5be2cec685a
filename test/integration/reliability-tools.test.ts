// Issue 10, area "tools", in the real extension host: the VS Code variants of
// the bash stress scenarios of test/reliability/tool-stress.test.ts (daemon,
// stdin, big output) through the Turnstone terminal, on both of its paths
// (shell integration, and the pseudoterminal fallback), each required to run
// on the path it names: a half that silently ran the other path fails.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { execFile } from 'node:child_process';
import { TerminalShell, integratedCommandLine, runnerEnv, writeRunFile } from '../../src/host/terminal/terminal-shell';
import { VsCodeWorkspace } from '../../src/host/vscode-workspace';
import { isAlive } from '../unit/tools/helpers';
import { createToolExecutor } from '../../src/tools/registry';
import { recordScenario } from '../reliability/report';

type Mode = 'integrated' | 'pseudoterminal';


describe('reliability: bash stress in the Turnstone terminal (F-TOOL)', function () {
  this.timeout(240_000);
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'turnstone-vscode-stress-')));
  const shells: Record<Mode, TerminalShell> = {
    // Shell integration comes up in 1.5–5 s in this test host, slower on a loaded machine: allow a minute.
    integrated: new TerminalShell({ name: 'Turnstone stress', shellIntegrationTimeoutMs: 60_000, log: (m) => console.log(`[terminal] ${m}`) }),
    // Never shell integration: with a short wait instead, a terminal that activated late took over later commands.
    pseudoterminal: new TerminalShell({ name: 'Turnstone stress pty', shellIntegration: false }),
  };
  const executors = Object.fromEntries(
    (Object.keys(shells) as Mode[]).map((mode) => [mode, createToolExecutor({ workspace: new VsCodeWorkspace([vscode.Uri.file(root)]), shell: shells[mode] }, { outputDir: path.join(root, '.out') })]),
  ) as Record<Mode, ReturnType<typeof createToolExecutor>>;
  const pids: number[] = [];

  after(async () => {
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    for (const shell of Object.values(shells)) shell.dispose();
    // Killing a daemon lets the tee it held write its last files in there: retry until the folder stays gone.
    const deadline = Date.now() + 20_000;
    for (;;) {
      try {
        fs.rmSync(root, { recursive: true, force: true });
        break;
      } catch (error) {
        if (Date.now() > deadline) {
          const left = fs.readdirSync(root, { recursive: true });
          throw new Error(`${String(error)}; still in ${root}: ${left.join(', ')}`);
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  });

  // Settle the integrated shell first (it gives up on shell integration after 3 misses), so the
  // timings below measure the command, not the wait for shell integration.
  before(async function () {
    this.timeout(120_000);
    for (let i = 0; i < 3 && shells.integrated.lastMode !== 'shell-integration'; i++) await run('integrated', 'true');
    console.log(`[stress] the integrated shell runs commands via ${shells.integrated.lastMode}`);
  });

  const run = async (mode: Mode, command: string, timeout = 60_000) => {
    const started = Date.now();
    const out = await executors[mode].execute('bash', { command, timeout }, { signal: new AbortController().signal });
    const ran = shells[mode].lastMode;
    return { ...out, ms: Date.now() - started, ran, onItsPath: ran === (mode === 'integrated' ? 'shell-integration' : 'pseudoterminal') };
  };

  it('A-SEC-ENV-01: a command the model runs in the Turnstone terminal does not see the provider key of the extension host', async () => {
    const key = process.env.ANTHROPIC_API_KEY;
    assert.ok(key, 'the runner gives the extension host a key in its environment');
    const parts: string[] = [];
    let leaks = 0;
    let offPath = 0;
    for (const mode of Object.keys(shells) as Mode[]) {
      const out = await run(mode, 'printenv ANTHROPIC_API_KEY; env | grep -c ANTHROPIC_API_KEY; echo end');
      const leaked = out.content.includes(key);
      if (leaked) leaks++;
      if (!out.onItsPath) offPath++;
      parts.push(`${mode} (ran via ${out.ran}): key in the tool result: ${leaked}`);
    }
    recordScenario({
      id: 'A-SEC-ENV-01',
      area: 'secrets',
      scenario: 'VS Code: the extension host has ANTHROPIC_API_KEY in its environment; the model runs `printenv ANTHROPIC_API_KEY; env | grep …` (shell integration and pseudoterminal)',
      expected: 'the command sees no provider key, so it never reaches the model',
      observed: parts.join('; '),
      passed: leaks === 0 && offPath === 0,
    });
    assert.equal(leaks, 0, parts.join('; '));
    assert.equal(offPath, 0, `a half ran on the other path: ${parts.join('; ')}`);
  });

  it('F-TOOL-19: `sleep 300 &` keeping the inherited stdout open, in the Turnstone terminal', async () => {
    const parts: string[] = [];
    const checks: Record<string, boolean> = {};
    for (const mode of Object.keys(shells) as Mode[]) {
      const pidFile = path.join(root, `daemon-${mode}.pid`);
      const out = await run(mode, `sleep 300 & echo $! > ${pidFile}; echo launched; exit 7`);
      const pid = Number(fs.existsSync(pidFile) ? fs.readFileSync(pidFile, 'utf8').trim() : 0);
      if (pid) pids.push(pid);
      const next = await run(mode, 'echo next-ok');
      checks[`${mode}: ran on its path`] = out.onItsPath;
      checks[`${mode}: prompt`] = out.ms < 10_000;
      checks[`${mode}: exit code`] = /launched/.test(out.content) && /Exit code: 7$/.test(out.content);
      checks[`${mode}: next`] = /next-ok/.test(next.content) && next.ms < 20_000;
      parts.push(
        `${mode} (ran via ${out.ran}): returned in ${out.ms} ms with ${JSON.stringify(out.content.replace(/\n+/g, ' | ').slice(0, 120))}; daemon ${pid && isAlive(pid) ? 'left running' : 'not running'}; next command ${next.ms} ms ok: ${checks[`${mode}: next`]}`,
      );
    }
    // The line the integrated path types, run by bash directly: shell integration does not always come up
    // in this headless workbench, and the hang was in the line itself (`| tee` waited for the daemon).
    const files = { output: path.join(root, 'line.out'), status: path.join(root, 'line.status'), done: path.join(root, 'line.done') };
    const pidFile = path.join(root, 'daemon-line.pid');
    const started = Date.now();
    const runFile = path.join(root, 'line.run');
    await writeRunFile(runFile, { cwd: root, files, prefix: undefined, note: undefined });
    const line = integratedCommandLine(`sleep 300 & echo $! > ${pidFile}; echo launched; exit 7`);
    const child = execFile('bash', ['-c', line], { timeout: 30_000, env: { ...process.env, ...runnerEnv(runFile) } });
    let status = '';
    while (Date.now() - started < 20_000 && !(status = fs.existsSync(files.status) ? fs.readFileSync(files.status, 'utf8').trim() : '')) await new Promise((r) => setTimeout(r, 25));
    const lineMs = Date.now() - started;
    const linePid = Number(fs.existsSync(pidFile) ? fs.readFileSync(pidFile, 'utf8').trim() : 0);
    if (linePid) pids.push(linePid);
    // tee copies as it reads: wait for the line rather than for a fixed time.
    let captured = '';
    for (const until = Date.now() + 10_000; Date.now() < until && !(captured = fs.existsSync(files.output) ? fs.readFileSync(files.output, 'utf8') : '').endsWith('\n'); ) await new Promise((r) => setTimeout(r, 25));
    child.kill();
    checks['command line: status'] = status === '7' && lineMs < 5000;
    checks['command line: output'] = captured === 'launched\n';
    parts.push(`integrated command line run by bash: status ${JSON.stringify(status)} written after ${lineMs} ms, output captured ${JSON.stringify(captured)}`);
    recordScenario({
      id: 'F-TOOL-19',
      area: 'tools',
      scenario: 'VS Code terminal (shell integration and pseudoterminal): `sleep 300 &` inheriting stdout, then exit 7',
      expected: 'bash returns promptly with exit code 7 instead of waiting on the pipe the daemon holds; the next command runs',
      observed: parts.join('; '),
      passed: Object.values(checks).every(Boolean),
    });
    assert.deepEqual(Object.entries(checks).filter(([, ok]) => !ok), []);
  });

  it('F-TOOL-20: commands reading stdin, in the Turnstone terminal', async () => {
    const parts: string[] = [];
    const checks: Record<string, boolean> = {};
    for (const mode of Object.keys(shells) as Mode[]) {
      const out = await run(mode, 'cat; read x; echo "got:$x (read status $?)"');
      checks[`${mode}: ran on its path`] = out.onItsPath;
      checks[`${mode}: prompt`] = out.ms < 10_000;
      checks[`${mode}: eof`] = /got: \(read status 1\)/.test(out.content) && /Exit code: 0$/.test(out.content);
      parts.push(`${mode} (ran via ${out.ran}): returned in ${out.ms} ms (timeout 60000) with ${JSON.stringify(out.content.replace(/\n+/g, ' | ').slice(0, 120))}`);
    }
    recordScenario({
      id: 'F-TOOL-20',
      area: 'tools',
      scenario: 'VS Code terminal (shell integration and pseudoterminal): `cat; read x; echo got:$x`',
      expected: 'stdin is at end of input: the command finishes at once instead of waiting on the keyboard until the timeout',
      observed: parts.join('; '),
      passed: Object.values(checks).every(Boolean),
    });
    assert.deepEqual(Object.entries(checks).filter(([, ok]) => !ok), []);
  });

  it('F-TOOL-21: a command printing 10 MB, in the Turnstone terminal', async () => {
    const parts: string[] = [];
    const checks: Record<string, boolean> = {};
    for (const mode of Object.keys(shells) as Mode[]) {
      const before = process.memoryUsage().rss;
      const out = await run(mode, 'seq 1 1500000', 120_000);
      const after = process.memoryUsage().rss;
      const next = await run(mode, 'echo next-ok');
      checks[`${mode}: ran on its path`] = out.onItsPath;
      checks[`${mode}: fast`] = out.ms < 90_000;
      checks[`${mode}: bounded`] = out.content.length < 31_000;
      checks[`${mode}: head and tail`] = /^1\n2\n3\n/.test(out.content) && /1499999\n1500000\n\nExit code: 0$/.test(out.content);
      checks[`${mode}: next`] = /next-ok/.test(next.content);
      // The complete output was streamed to the named file (1..1500000, one per line: 10888896 bytes).
      const saved = /saved to (\S+?)[\]\s]/.exec(out.content)?.[1];
      const savedSize = saved && fs.existsSync(saved) ? fs.statSync(saved).size : 0;
      checks[`${mode}: complete file`] = savedSize === 10_888_896;
      const note = /… \[[^\]]*\] …/.exec(out.content)?.[0] ?? '(no note)';
      parts.push(
        `${mode} (ran via ${out.ran}): ${out.ms} ms, result ${out.content.length} chars, head/tail kept: ${checks[`${mode}: head and tail`]}, saved file ${savedSize} bytes (complete: ${checks[`${mode}: complete file`]}), note ${JSON.stringify(note.slice(0, 90))}…; host rss ${(before / 2 ** 20).toFixed(0)} → ${(after / 2 ** 20).toFixed(0)} MB; next ok: ${checks[`${mode}: next`]}`,
      );
    }
    recordScenario({
      id: 'F-TOOL-21',
      area: 'tools',
      scenario: 'VS Code terminal (shell integration and pseudoterminal): `seq 1 1500000` (10.9 MB in 1.5 M lines)',
      expected: 'returns in bounded time; head + tail within the 30k-character limit with the truncation note; the complete output in the named file; the next command works',
      observed: parts.join('; '),
      passed: Object.values(checks).every(Boolean),
    });
    assert.deepEqual(Object.entries(checks).filter(([, ok]) => !ok), []);
  });
});
