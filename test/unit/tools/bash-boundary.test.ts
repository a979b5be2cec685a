// Issue 24, classes 3-5: what an allowed command reaches is judged after the
// file system, not by the spelling of its words. A plain word that is a link
// out of the workspace or to a secret, an output option or copy destination
// naming a control file, a recursive read of a tree holding secrets, a read of
// the repository's history holding one, and options that make a prefix-allowed
// program run code: each asks, through the real bash tool's assessment and the
// real PermissionPolicy. Ordinary commands under the same rules stay allowed.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { PermissionPolicy, type PermissionRules, type PolicyOutcome } from '../../../src/runtime/policy/permissions';
import { loadShellParser } from '../../../src/runtime/policy/shell-parser';
import { type ToolExecutor } from '../../../src/runtime/types';
import { NodeShell, NodeWorkspace } from '../../../src/tools/node-adapter';
import { createToolExecutor } from '../../../src/tools/registry';

describe('tools: bash permission decisions judge paths after the file system (issue 24)', () => {
  let base: string;
  let ws: string;
  let tools: ToolExecutor;
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', ...args], { cwd: ws, stdio: 'pipe' });

  before(async () => {
    base = realpathSync(mkdtempSync(path.join(tmpdir(), 'turnstone-bash-boundary-')));
    ws = path.join(base, 'ws');
    mkdirSync(path.join(ws, 'src'), { recursive: true });
    mkdirSync(path.join(base, 'outside'));
    writeFileSync(path.join(base, 'outside', 'secret.txt'), 'outside\n');
    writeFileSync(path.join(ws, 'src', 'a.ts'), 'export const a = 1;\n');
    writeFileSync(path.join(ws, 'README.md'), 'hi\n');
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'init');
    // A secret committed once and removed since: still in the history.
    writeFileSync(path.join(ws, 'deploy.pem'), 'history secret\n');
    git('add', 'deploy.pem');
    git('commit', '-qm', 'key');
    git('rm', '-q', 'deploy.pem');
    git('commit', '-qm', 'rm key');
    writeFileSync(path.join(ws, '.env'), 'TOKEN=x\n');
    symlinkSync('../outside/secret.txt', path.join(ws, 'notes'));
    symlinkSync('.env', path.join(ws, 'settings'));
    symlinkSync('.git/config', path.join(ws, 'cfg'));
    // No OS sandbox here: the rules must hold on their own (macOS, or the sandbox off).
    tools = createToolExecutor({ workspace: new NodeWorkspace(ws), shell: new NodeShell() }, { homeDir: path.join(base, 'home') });
    await loadShellParser();
  });
  after(() => rmSync(base, { recursive: true, force: true }));

  async function judge(command: string, rules: PermissionRules): Promise<PolicyOutcome> {
    const assessment = await tools.assess('bash', { command });
    return new PermissionPolicy('ask', rules).decide({ toolName: 'bash', readOnly: false, assessment });
  }
  const READ_RULES = { allow: ['bash(cat:*)', 'bash(head:*)', 'bash(grep:*)', 'bash(git log:*)', 'bash(git show:*)', 'bash(git diff:*)', 'bash(rg:*)', 'bash(cp:*)', 'bash(tee:*)'] };

  it('24.3: a plain word that is a link out of the workspace, to a secret or to .git/config is judged by where it leads', async () => {
    const cases: [string, RegExp][] = [
      ['cat notes', /outside the workspace/],
      ['head -n 5 notes', /outside the workspace/],
      ['cat settings', /may hold secrets/],
      ['grep TOKEN settings', /may hold secrets/],
      ['git log --output=cfg', /\.git/],
      ['git log --output=.mcp.json', /\.mcp\.json/],
      ['git diff --output .vscode/settings.json', /\.vscode/],
      ['cp README.md .mcp.json', /\.mcp\.json/],
      ['cp README.md cfg', /\.git/],
      ['echo x | tee .envrc', /\.envrc/],
    ];
    for (const [command, reason] of cases) {
      const o = await judge(command, { allow: [...READ_RULES.allow, 'bash(echo:*)'] });
      assert.equal(o.kind, 'ask', command);
      assert.match(o.reason, reason, command);
    }
  });

  it('24.4: recursive reads of a tree holding a secret ask (the sandbox does not hide them here); searches of plain files do not', async () => {
    for (const command of ['grep -r TOKEN .', 'grep -rn TOKEN', 'grep -R x src .', 'rg TOKEN', 'rg --hidden TOKEN .']) {
      const o = await judge(command, READ_RULES);
      assert.equal(o.kind, 'ask', command);
      assert.match(o.reason, /reads every file under .*\.env/, command);
    }
    for (const command of ['grep -rn a src', 'grep TOKEN README.md', 'rg a src', 'cat README.md']) {
      assert.equal((await judge(command, READ_RULES)).kind, 'allow', command);
    }
  });

  it("24.4: reading the repository's history asks when it holds a secret, even one deleted since; plain log and status do not", async () => {
    for (const command of ['git show HEAD~1', 'git log -p', 'git log --patch --all', 'git diff HEAD~2', 'git show HEAD~1:deploy.pem']) {
      const o = await judge(command, READ_RULES);
      assert.equal(o.kind, 'ask', command);
      assert.match(o.reason, /history, which holds deploy\.pem|may hold secrets/, command);
    }
    for (const command of ['git log --oneline', 'git log --stat -3']) {
      assert.equal((await judge(command, READ_RULES)).kind, 'allow', command);
    }
  });

  it('24.5: a prefix rule does not cover options that run code; the exact command it names still runs', async () => {
    const rules = { allow: ['bash(npm test:*)', 'bash(make test:*)', 'bash(git log:*)', 'bash(rg:*)', 'bash(wc:*)'] };
    for (const command of [
      'npm test --node-options=--import=data:text/javascript,1',
      'npm test -- --require ./evil.js',
      'npm test --script-shell=./x.sh',
      'make test --eval=all:;touch x',
      'make test -f evil.mk',
      'make test SHELL=./evil.sh',
      'make test -C ../other',
      'git log --ext-diff -p',
      'rg --pre ./x pattern',
      'npm test --inspect-brk',
    ]) {
      assert.equal((await judge(command, rules)).kind, 'ask', command);
    }
    for (const command of ['npm test', 'npm test -- --grep P1', 'make test', 'make test -j4', 'git log --oneline -5', 'rg -n TODO src', 'wc -c README.md']) {
      assert.equal((await judge(command, rules)).kind, 'allow', command);
    }
  });
});
