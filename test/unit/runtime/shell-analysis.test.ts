// Issue 21: command permission decisions on a real bash syntax tree, failing
// closed. Each class of the attack report has several payloads; ordinary
// commands that must stay allowed are checked next to them. Decisions go
// through the real bash tool's assessment (paths resolved in a real temp
// workspace) and the real PermissionPolicy.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ShellHookRunner } from '../../../src/runtime/policy/hooks';
import { matchesEveryPart, parseRule, ruleSubject, suggestRule } from '../../../src/runtime/policy/permission-rules';
import { PermissionPolicy, type PermissionMode, type PermissionRules, type PolicyOutcome } from '../../../src/runtime/policy/permissions';
import { analyseCommand } from '../../../src/runtime/policy/shell-analysis';
import { loadShellParser } from '../../../src/runtime/policy/shell-parser';
import { type ToolExecutor } from '../../../src/runtime/types';
import { NodeShell, NodeWorkspace } from '../../../src/tools/node-adapter';
import { createToolExecutor } from '../../../src/tools/registry';

const repo = path.resolve(__dirname, '..', '..', '..');

describe('runtime: command permissions on a bash syntax tree (issue 21)', () => {
  let base: string;
  let root: string;
  let tools: ToolExecutor;

  before(async () => {
    base = realpathSync(tmpdirMk());
    root = path.join(base, 'ws');
    mkdirSync(path.join(root, 'src'), { recursive: true });
    mkdirSync(path.join(base, 'home', '.ssh'), { recursive: true });
    tools = createToolExecutor({ workspace: new NodeWorkspace(root), shell: new NodeShell() }, { homeDir: path.join(base, 'home'), sensitiveFiles: ['secrets/**'] });
    await loadShellParser();
  });
  after(() => rmSync(base, { recursive: true, force: true }));

  async function judge(command: string, mode: PermissionMode, rules: PermissionRules, extra: Record<string, unknown> = {}): Promise<PolicyOutcome> {
    const assessment = await tools.assess('bash', { command, ...extra });
    return new PermissionPolicy(mode, rules).decide({ toolName: 'bash', readOnly: false, assessment });
  }
  const askUnder = async (rule: string, command: string) => judge(command, 'ask', { allow: [rule] });
  const bypassDeny = async (command: string) => judge(command, 'bypassPermissions', { deny: ['bash(rm:*)'] });

  it('ordinary approved workflows stay allowed', async () => {
    assert.equal((await askUnder('bash(npm test)', 'npm test')).kind, 'allow');
    assert.equal((await askUnder('bash(git status:*)', 'git status')).kind, 'allow');
    assert.equal((await askUnder('bash(git status:*)', 'git status --short')).kind, 'allow');
    const both = { allow: ['bash(ls:*)', 'bash(grep:*)'] };
    assert.equal((await judge('ls -la | grep x', 'ask', both)).kind, 'allow');
    assert.equal((await askUnder('bash(echo:*)', 'echo hi > out.txt')).kind, 'allow', 'a write inside the workspace');
    assert.equal((await askUnder('bash(echo:*)', 'echo hi 2>&1 > /dev/null && echo "a;b" \'c|d\'')).kind, 'allow');
    assert.equal((await askUnder('bash(npm test:*)', 'NODE_ENV=test npm test -- --grep "P1"')).kind, 'allow');
    assert.equal((await bypassDeny('ls -la && git status')).kind, 'allow');
    assert.equal((await bypassDeny('rmdir build')).kind, 'allow', 'a prefix rule stops at a word boundary');
  });

  it('class 1: a quote inside a comment or a quoted here-document cannot hide the next command', async () => {
    for (const command of [
      "git status # it's\nrm -rf src",
      'git status # "\ntouch pwned',
      "git status <<'EOF'\nit's\nEOF\ntouch pwned",
      'git status <<"EOF"\n"\nEOF\ntouch pwned',
      "git status -- '#' # '\ntouch pwned",
    ]) {
      const o = await askUnder('bash(git status:*)', command);
      assert.equal(o.kind, 'ask', JSON.stringify(command));
      assert.match(o.reason, /not every part matches an allow rule/, JSON.stringify(command));
    }
    assert.equal((await bypassDeny("git status # it's\nrm -rf src")).kind, 'deny');
  });

  it('class 2: expansions that run code or are not static ask, and the question names the construct', async () => {
    const cases: [string, RegExp][] = [
      ['echo ${x@P}', /\$\{…@P\} expansion/],
      ['echo $[_]', /arithmetic expansion \$\[ … \]/],
      ['echo $((x))', /arithmetic expansion \$\(\( … \)\)/],
      ['echo ${a:$((1)):1}', /parameter expansion/],
      ['echo ${arr[$(touch pwned)]}', /parameter expansion|command substitution/],
      ['echo "$(touch pwned)"', /command substitution \$\( … \)/],
      ['echo `touch pwned`', /command substitution `…`/],
      ['echo $HOME', /variable expansion/],
      ['echo <(touch pwned)', /process substitution/],
      ['echo hi > "$(echo out)"', /command substitution|computed target/],
      ['cat <<EOF\n$(touch pwned)\nEOF', /here-document with expansions/],
      ['X=$(touch pwned) echo hi', /non-literal value/],
      ["echo $'\\x41'", /ANSI-C quoting/],
    ];
    for (const [command, construct] of cases) {
      const o = await askUnder('bash(echo:*)', command);
      assert.equal(o.kind, 'ask', command);
      assert.match(o.reason, construct, command);
    }
    // Commands inside substitutions are still seen by deny rules.
    assert.equal((await bypassDeny('echo "$(rm -rf src)"')).kind, 'deny');
    assert.equal((await bypassDeny('echo ${a[$(rm -rf src)]}')).kind, 'deny');
  });

  it("class 3: blanks bash does not split on (U+00A0, \\v, \\f) ask, and count as hiding the command for deny rules", async () => {
    for (const command of ['echo\u00a0hi', 'X=1\u000brm -rf src', 'echo hi\u000c; touch pwned', 'echo a\u00a0&&\u00a0rm -rf src']) {
      const o = await askUnder('bash(echo:*)', command);
      assert.equal(o.kind, 'ask', JSON.stringify(command));
      assert.match(o.reason, /unusual blank/, JSON.stringify(command));
      assert.equal((await bypassDeny(command)).kind, 'deny', JSON.stringify(command));
    }
  });

  it('class 4: deny rules hold against globs, braces, backslash-newlines, wrappers and control structures', async () => {
    for (const command of [
      'rm -rf src',
      '/bin/rm -rf src',
      '\\rm -rf src',
      '"r"m -rf src',
      '/bin/r[m] -rf src',
      '/bin/r? -rf src',
      '{rm,-rf,src}',
      'r\\\nm -rf src',
      'sudo rm -rf src',
      'sudo -u root rm -rf src',
      'busybox rm -rf src',
      'command rm -rf src',
      'builtin rm',
      'exec rm -rf src',
      'env -S "rm -rf src"',
      'env X=1 rm -rf src',
      'timeout 5 rm -rf src',
      'nice -n 5 rm -rf src',
      'find . -name x -exec rm {} \\;',
      'ls | xargs rm',
      'for f in src; do rm -rf $f; done',
      'if true; then rm -rf src; fi',
      'while false; do :; done; until true; do rm x; done',
      'case x in x) rm -rf src;; esac',
      '! rm -rf src',
      '(rm -rf src)',
      '{ rm -rf src; }',
      'f() { rm -rf src; }; f',
      "sh -c 'rm -rf src'",
      'bash -c "ls; rm -rf src"',
      'eval "rm -rf src"',
      "trap 'rm -rf src' EXIT",
      'x=rm; $x -rf src',
      '$(echo rm) -rf src',
      "$'\\x72m' -rf src",
      'cat script | sh',
      'source ./script.sh',
      'PATH=/tmp/evil ls',
      'RM -rf src',
      '/bin/Rm -rf src',
    ]) {
      const o = await bypassDeny(command);
      assert.equal(o.kind, 'deny', JSON.stringify(command));
      // Outside bypassPermissions a command that only hides its names asks instead of being denied.
    }
    const hidden = await judge('x=rm; $x -rf src', 'ask', { deny: ['bash(rm:*)'] });
    assert.equal(hidden.kind, 'ask');
    assert.match(hidden.reason, /cannot be checked/);
    assert.equal((await judge('rm -rf src', 'ask', { deny: ['bash(rm:*)'] })).kind, 'deny', 'a visible match is denied in every mode');
    const reason = await bypassDeny('x=rm; $x -rf src');
    assert.ok(reason.kind === 'deny' && /not a literal word.*bash\(rm:\*\) cannot be checked/.test(reason.reason), reason.reason);
  });

  it('class 4 (allow side): wrappers, functions, control structures and globs in names never get an allow', async () => {
    for (const command of ['sudo echo hi', 'env echo hi', 'command echo hi', 'if true; then echo hi; fi', 'f() { echo hi; }', '(echo hi)', 'ec[h]o hi', 'echo hi &', 'eval echo hi']) {
      assert.equal((await askUnder('bash(echo:*)', command)).kind, 'ask', command);
    }
  });

  it('class 5: hooks match per command: a deny hook sees any part, an allow hook covers only commands it matches entirely', async () => {
    const signal = new AbortController().signal;
    const runner = new ShellHookRunner(
      {
        PreToolUse: [
          { matcher: 'bash(git status:*)', command: `echo '{"decision":"allow"}'` },
          { matcher: 'bash(rm:*)', command: 'echo "no rm" >&2; exit 2' },
        ],
      },
      { cwd: root },
    );
    const run = (command: string) => runner.run('PreToolUse', { tool_name: 'bash', tool_input: { command }, subject: command }, signal);
    assert.equal((await run('git status')).decision, 'allow');
    const partial = await run('git status && touch pwned');
    assert.equal(partial.decision, undefined, 'the allow covers git status only');
    assert.equal(partial.outcome, 'ok');
    for (const command of ['true && rm -rf src', 'ls; (rm -rf src)', 'x=rm; $x src']) {
      assert.equal((await run(command)).outcome, 'denied', command);
    }
    // Through the policy: a hook's allow of a command that is not provably plain asks.
    const assessment = await tools.assess('bash', { command: 'git status $(touch pwned)' });
    const o = new PermissionPolicy('ask').decide({ toolName: 'bash', readOnly: false, assessment, hookOverride: 'allow' });
    assert.equal(o.kind, 'ask');
    assert.match(o.reason, /hook allows it, but .*command substitution/);
  });

  it('class 6: suggested rules are the exact command, a prefix only for reviewed read-only commands', () => {
    assert.equal(suggestRule('bash', 'git config user.name X'), 'bash(git config user.name X)');
    assert.equal(suggestRule('bash', 'sed -n 1,3p f'), 'bash(sed -n 1,3p f)');
    assert.equal(suggestRule('bash', 'find . -name "*.ts"'), 'bash(find . -name "*.ts")');
    assert.equal(suggestRule('bash', 'npm test'), 'bash(npm test)');
    assert.equal(suggestRule('bash', 'rg --pre ./x foo'), 'bash(rg --pre ./x foo)');
    assert.equal(suggestRule('bash', 'git status --short'), 'bash(git status:*)');
    assert.equal(suggestRule('bash', 'git log -3'), 'bash(git log:*)');
    assert.equal(suggestRule('bash', 'ls -la src'), 'bash(ls:*)');
    assert.equal(suggestRule('bash', 'cat a.txt > b.txt'), 'bash(cat a.txt > b.txt)', 'a write is never a prefix');
    assert.equal(suggestRule('bash', 'ls && rm -rf x'), 'bash(ls && rm -rf x)');
    // The exact rule allows that command and nothing longer; a compound exact rule covers just itself.
    const exact = (rule: string, command: string) => matchesEveryPart([parseRule(rule)], ruleSubject('bash', command));
    assert.ok(exact('bash(git config user.name X)', 'git config user.name X'));
    assert.ok(!exact('bash(git config user.name X)', 'git config core.pager "sh -c x"'));
    assert.ok(exact('bash(ls -la | grep x)', 'ls -la | grep x'));
    assert.ok(!exact('bash(git commit -m "a b")', 'git commit -m a b'), 'words are compared with quotes resolved');
  });

  it('issue 21: arguments that resolve outside the workspace make an allowed command ask', async () => {
    writeFileSync(path.join(root, 'a.txt'), 'x');
    for (const command of [
      'cat /etc/passwd',
      'cat ~/.ssh/id_rsa',
      'cat ../outside.txt',
      'cat src/../../outside.txt',
      'cat $HOME/.ssh/id_rsa',
      'cat a.txt > /tmp/out',
      'cat < /etc/hostname',
      'cat --file=/etc/passwd',
    ]) {
      const o = await askUnder('bash(cat:*)', command);
      assert.equal(o.kind, 'ask', command);
    }
    const o = await askUnder('bash(git diff:*)', 'git diff --no-index /etc/passwd a.txt');
    assert.ok(o.kind === 'ask' && o.reason.startsWith('outside the workspace: /etc/passwd'), o.reason);
    assert.equal((await askUnder('bash(cat:*)', 'cat a.txt src/../a.txt')).kind, 'allow');
    assert.equal((await judge('cat /etc/passwd', 'bypassPermissions', {})).kind, 'allow');
  });

  it('issue 21: sensitive files ask when a command names them or read_file reads them, in every mode but bypassPermissions', async () => {
    for (const command of ['cat .env', 'cat config/.env.production', 'cat deploy/server.pem', 'cat id_rsa', 'cat secrets/token.txt', 'echo x > .git/hooks/pre-commit']) {
      const o = await judge(command, 'ask', { allow: ['bash(cat:*)', 'bash(echo:*)'] });
      assert.equal(o.kind, 'ask', command);
      assert.match(o.reason, /sensitive path/, command);
    }
    assert.equal((await askUnder('bash(cat:*)', 'cat .env.example')).kind, 'allow');
    // An argument that may be written to, naming a hook file, asks like a redirection there.
    for (const command of ['git diff --output=.git/hooks/pre-commit', 'git diff -o.git/hooks/pre-commit', 'git diff --output .husky/pre-commit']) {
      const o = await askUnder('bash(git diff:*)', command);
      assert.ok(o.kind === 'ask' && /sensitive path/.test(o.reason), command);
    }
    for (const mode of ['plan', 'ask', 'acceptEdits'] as const) {
      const assessment = await tools.assess('read_file', { path: '.env' });
      assert.equal(new PermissionPolicy(mode, { allow: ['read_file'] }).decide({ toolName: 'read_file', readOnly: true, assessment }).kind, 'ask', mode);
    }
    const env = await tools.assess('read_file', { path: '.env' });
    assert.equal(new PermissionPolicy('bypassPermissions').decide({ toolName: 'read_file', readOnly: true, assessment: env }).kind, 'allow');
    const grep = await tools.assess('grep_search', { pattern: 'TOKEN', path: '.env' });
    assert.match(grep.sensitive ?? '', /may hold secrets/, 'grep_search inside a secret file asks too');
    assert.equal((await tools.assess('grep_search', { pattern: 'TOKEN', path: 'src' })).sensitive, undefined);
    const extended = await tools.assess('read_file', { path: 'secrets/a/b.txt' });
    assert.match(extended.sensitive ?? '', /matches secrets\/\*\*/, 'turnstone.permissions.sensitiveFiles extends the list');
  });

  it('issue 21: a grep_search over a folder skips secret files, with ripgrep and with the JS engine', async () => {
    const secret = `SECRET-${process.pid}`;
    mkdirSync(path.join(root, 'cfg'), { recursive: true });
    writeFileSync(path.join(root, '.env'), `TOKEN=${secret}\n`);
    writeFileSync(path.join(root, 'cfg', 'Server.PEM'), `${secret}\n`);
    writeFileSync(path.join(root, 'src', 'uses.ts'), `// ${secret}\n`);
    const rg = spawnSync('rg', ['--version']).status === 0;
    const engines: Array<[string, ToolExecutor]> = [['js', tools]];
    if (rg) engines.push(['rg', createToolExecutor({ workspace: new NodeWorkspace(root), shell: new NodeShell() }, { ripgrepPath: 'rg', homeDir: path.join(base, 'home') })]);
    for (const [engine, executor] of engines) {
      for (const mode of ['files_with_matches', 'content'] as const) {
        const r = await executor.execute('grep_search', { pattern: secret, output_mode: mode, glob: '*' }, { signal: new AbortController().signal });
        assert.match(r.content, /src\/uses\.ts/, `${engine} ${mode}`);
        assert.doesNotMatch(r.content, /\.env|Server\.PEM|TOKEN=/, `${engine} ${mode}`);
      }
    }
  });

  it('issue 21: path rules accept globs, matched like glob_search', () => {
    const path = (rule: string, subject: string) => matchesEveryPart([parseRule(rule)], ruleSubject('edit_file', subject));
    assert.ok(path('edit_file(src/**)', 'src/a/b.ts'));
    assert.ok(path('edit_file(src/**)', 'src/a.ts'));
    assert.ok(!path('edit_file(src/**)', 'lib/a.ts'));
    assert.ok(path('read_file(docs/*)'.replace('read_file', 'edit_file'), 'docs/a.md'));
    assert.ok(!path('edit_file(docs/*)', 'docs/a/b.md'));
    assert.ok(path('edit_file(src/*.{ts,tsx})', 'src/a.tsx'));
    assert.ok(path('edit_file(src/*)', 'src/*'), 'the literal path still matches');
  });

  it('issue 21: `sandbox: false` asks whatever the rules, except in bypassPermissions', async () => {
    const o = await judge('ls', 'ask', { allow: ['bash(ls:*)'] }, { sandbox: false });
    assert.ok(o.kind === 'ask' && /outside the OS sandbox/.test(o.reason), o.kind);
    assert.equal((await judge('ls', 'acceptEdits', { allow: ['bash'] }, { sandbox: false })).kind, 'ask');
    assert.equal((await judge('ls', 'bypassPermissions', {}, { sandbox: false })).kind, 'allow');
    assert.equal((await judge('ls', 'ask', { allow: ['bash(ls:*)'] }, { sandbox: true })).kind, 'allow');
  });

  it('a parse error or an unsupported operator fails closed', async () => {
    for (const command of ["git status 'unterminated", 'git status )', 'git status |& cat', 'git status & touch pwned']) {
      assert.equal((await askUnder('bash(git status:*)', command)).kind, 'ask', command);
    }
    assert.ok(analyseCommand("echo 'x").unresolved.some((r) => /parse error/.test(r)));
  });

  it('the parser is not loaded when the runtime is imported, only on the first command', () => {
    const script = [
      "require('./src/runtime/loop/conversation');",
      "require('./src/runtime/policy/permissions');",
      "const loaded = Object.keys(require.cache).some((k) => k.includes('web-tree-sitter'));",
      "process.stdout.write(String(loaded));",
    ].join('');
    const r = spawnSync(process.execPath, ['--require', 'tsx/cjs', '-e', script], { cwd: repo, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, 'false');
  });
});

function tmpdirMk(): string {
  const dir = path.join(tmpdir(), `turnstone-shell-${process.pid}-${Date.now()}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}
