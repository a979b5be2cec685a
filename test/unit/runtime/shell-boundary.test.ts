// Issue 24, classes 1 and 2: where bash and the parser read a command
// differently the analysis fails closed (no allow rule vouches, every deny rule
// matches), and every way of handing a script to a shell or a program to a
// wrapper is seen by deny rules. Decisions go through the real bash tool's
// assessment and the real PermissionPolicy.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { PermissionPolicy, type PermissionMode, type PermissionRules, type PolicyOutcome } from '../../../src/runtime/policy/permissions';
import { analyseCommand } from '../../../src/runtime/policy/shell-analysis';
import { loadShellParser } from '../../../src/runtime/policy/shell-parser';
import { type ToolExecutor } from '../../../src/runtime/types';
import { NodeShell, NodeWorkspace } from '../../../src/tools/node-adapter';
import { createToolExecutor } from '../../../src/tools/registry';

describe('runtime: the command analysis fails closed where bash reads differently (issue 24)', () => {
  let base: string;
  let tools: ToolExecutor;

  before(async () => {
    base = realpathSync(mkdtempSync(path.join(tmpdir(), 'turnstone-boundary-')));
    mkdirSync(path.join(base, 'ws'));
    tools = createToolExecutor({ workspace: new NodeWorkspace(path.join(base, 'ws')), shell: new NodeShell() }, { homeDir: path.join(base, 'home') });
    await loadShellParser();
  });
  after(() => rmSync(base, { recursive: true, force: true }));

  async function judge(command: string, mode: PermissionMode, rules: PermissionRules): Promise<PolicyOutcome> {
    const assessment = await tools.assess('bash', { command });
    return new PermissionPolicy(mode, rules).decide({ toolName: 'bash', readOnly: false, assessment });
  }

  it('24.1: a CR, an escaped blank before #, a backslash before CR LF, skipped text and more than one redirect target fail closed', async () => {
    const payloads = [
      'echo a\r# x; touch c',
      'git status\r\ntouch c',
      'echo \\ #x; touch c',
      'echo "a"\\ #x; touch c',
      'echo a\\\t#x; touch c',
      'echo a \\\r\ntouch c',
      'echo hi > a b c',
      'echo hi >out x1 y',
      'x1 \\ status',
      '\\true #x"\n\\x1',
      'test ";"status\ntest  # c\n\\echo',
      'echo a | Z=1 printf b-;  --x=1--x=10',
      'grep x >& -b',
      'cat -n$"a"; echo',
      'ls \\\n --x=1f.txtstatus\n\\git .',
      'ls `grep \\)\\$b`',
    ];
    for (const command of payloads) {
      const a = analyseCommand(command);
      assert.ok(a.unresolved.length > 0, `${JSON.stringify(command)} is read as plain: ${JSON.stringify(a.commands.map((c) => c.words))}`);
      assert.equal((await judge(command, 'ask', { allow: ['bash(echo:*)', 'bash(git status:*)', 'bash(ls:*)', 'bash(grep:*)', 'bash(test:*)', 'bash(cat:*)'] })).kind, 'ask', JSON.stringify(command));
      assert.equal((await judge(command, 'bypassPermissions', { deny: ['bash(touch:*)'] })).kind, 'deny', JSON.stringify(command));
    }
  });

  it('24.1: what the full differential run found: commands inside a tilde word, skipped text inside a substitution in quotes, a quoted >& target', async () => {
    // A command substitution in a word that starts with ~ runs: the deny rule sees it.
    for (const command of ['touch ~$?$(! rm _x)', 'ls ~/x";$(rm y)a"-']) {
      assert.ok(analyseCommand(command).commands.some((c) => c.name === 'rm'), `${command}: rm is seen`);
      assert.equal((await judge(command, 'bypassPermissions', { deny: ['bash(rm:*)'] })).kind, 'deny', command);
      assert.equal((await judge(command, 'ask', { allow: ['bash(touch:*)', 'bash(ls:*)'] })).kind, 'ask', command);
    }
    // A backslash and a tab the parser skips inside "$(…)": bash reads them, so the analysis cannot vouch.
    assert.ok(analyseCommand('grep . "$(grep \'\'. \\\t\'`;\')"').unresolved.length > 0);
    // `>&'x'`: bash names the file its own way.
    assert.ok(analyseCommand("printf x >&'a b'").unresolved.length > 0);
    // Still plain: substitutions in quotes with ordinary spacing, and >& to a descriptor or a plain file name.
    for (const command of ['echo "a $(ls -l) b"', 'echo "$(echo "in  ner")" "tail end"', 'make >&2', 'make >& build.log']) {
      assert.deepEqual(analyseCommand(command).unresolved, [], command);
    }
  });

  it("24.1: a token the parser leaves out of a word (`''$$`) makes the word computed: no allow, and a deny rule matches from there", async () => {
    const a = analyseCommand("rm  \\#''$$ x-");
    assert.deepEqual(a.commands[0]!.literal, [true, false, true]);
    assert.equal((await judge("git status \\#''$$", 'ask', { allow: ['bash(git status:*)'] })).kind, 'ask');
    assert.equal((await judge("git  \\#''$$ x", 'bypassPermissions', { deny: ['bash(git push:*)'] })).kind, 'deny');
  });

  it('24.1: ordinary spellings stay plain (comments, escapes inside words, quotes, line continuations between words)', async () => {
    for (const command of ['echo a # note', 'echo a;#x\ngit status', 'echo a\\#b', "grep -n 'a b' src", 'ls -la \\\n  src', 'echo "a # b"', 'echo a\\ b', 'echo a\\\\\\ #x; touch c']) {
      assert.deepEqual(analyseCommand(command).unresolved, [], JSON.stringify(command));
    }
    assert.equal((await judge('git status # why\ngit status --short', 'ask', { allow: ['bash(git status:*)'] })).kind, 'allow');
  });

  it('24.2: every way to hand a script to a shell is read: options before and after -c, --, clusters with -o/-O', async () => {
    for (const command of [
      "bash -c -- 'rm x'",
      "bash -c -O extglob 'rm x'",
      "bash -O extglob -c 'rm x'",
      "sh -ec 'rm x'",
      "bash -eo pipefail -c 'rm x'",
      "bash --norc --noprofile -c 'rm x'",
      "dash -c 'true; rm x'",
      "bash -lc 'rm x'",
      "zsh -c -- 'rm x'",
    ]) {
      const o = await judge(command, 'bypassPermissions', { deny: ['bash(rm:*)'] });
      assert.ok(o.kind === 'deny' && /bash\(rm:\*\)/.test(o.reason), `${command}: ${o.kind} ${o.reason}`);
    }
    // A shell reading its script from stdin, a file, or an rc file named by an option hides it: unresolved.
    for (const command of ['echo "rm x" | bash -s', 'bash --rcfile ./x -c true', 'bash script.sh', 'bash +c x']) {
      assert.ok(analyseCommand(command).unresolved.length > 0, command);
    }
  });

  it('24.2: wrappers, loaders, /proc/*/exe and package runners are seen by deny rules', async () => {
    for (const command of [
      '/proc/self/exe -c "rm x"',
      '/proc/1/exe rm x',
      '/lib64/ld-linux-x86-64.so.2 /bin/rm x',
      '/lib/ld-musl-x86_64.so.1 /bin/rm x',
      'setpriv --reuid=1000 rm x',
      "sg staff -c 'rm x'",
      'sg staff rm x',
      "npm exec -c 'rm x'",
      "npx -c 'rm x'",
      'npx rm x',
      'npm exec rm x',
      'uv run rm x',
      'poetry run rm x',
      'chroot / rm x',
      'unshare -r rm x',
      'nsenter -t 1 rm x',
      'flock /tmp/l rm x',
      'timeout -s KILL 5 rm x',
      'nice -n 5 rm x',
      'stdbuf -o0 rm x',
      'HOME=. bash -ic true',
      'rm $x',
      'git $(echo push) origin',
    ]) {
      const rules = { deny: ['bash(rm:*)', 'bash(git push:*)'] };
      const o = await judge(command, 'bypassPermissions', rules);
      assert.equal(o.kind, 'deny', `${command}: ${o.kind} ${o.reason}`);
    }
  });

  it('24.2: a runner named with its command in an allow rule still runs unasked; wrappers never get an allow', async () => {
    assert.equal((await judge('uv run pytest -k "a b"', 'ask', { allow: ['bash(uv run pytest:*)'] })).kind, 'allow');
    assert.equal((await judge('npx prettier --check src', 'ask', { allow: ['bash(npx prettier:*)'] })).kind, 'allow');
    assert.equal((await judge('setpriv echo hi', 'ask', { allow: ['bash(setpriv:*)'] })).kind, 'ask');
  });

  it('24.2: a deny rule naming arguments matches when a computed word stands where they would be', async () => {
    const rules = { deny: ['bash(git push:*)'] };
    assert.equal((await judge('git $cmd origin', 'bypassPermissions', rules)).kind, 'deny');
    assert.equal((await judge('git status', 'bypassPermissions', rules)).kind, 'allow');
    assert.equal((await judge('git status $x', 'bypassPermissions', rules)).kind, 'allow', 'the rule fails on its second word before the computed one');
  });
});
