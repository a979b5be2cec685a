// Issue 42, item 1: the token actions/checkout leaves in .git/config (http.…extraheader) reached the model through
// read_file, unasked, in acceptEdits. Credential files known by where they sit are sensitive for reads: the read
// asks in every mode but bypassPermissions, and a non-interactive run (the CLI, the Action) denies it.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { PermissionPolicy } from '../../../src/runtime/policy/permissions';
import { sensitiveFileMatcher } from '../../../src/runtime/policy/sensitive-files';
import { type ToolExecutor } from '../../../src/runtime/types';
import { NodeShell, NodeWorkspace } from '../../../src/tools/node-adapter';
import { createToolExecutor } from '../../../src/tools/registry';

describe('tools: credential files are sensitive for reads (issue 42.1)', () => {
  let base: string;
  let ws: string;
  let tools: ToolExecutor;

  before(() => {
    base = realpathSync(mkdtempSync(path.join(tmpdir(), 'turnstone-credential-files-')));
    ws = path.join(base, 'ws');
    mkdirSync(path.join(ws, '.git', 'modules', 'vendor', 'lib'), { recursive: true });
    mkdirSync(path.join(ws, 'src', 'config'), { recursive: true });
    mkdirSync(path.join(ws, '.aws'), { recursive: true });
    const extraheader = '[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46Z2hzX3NlY3JldA==\n';
    writeFileSync(path.join(ws, '.git', 'config'), extraheader);
    writeFileSync(path.join(ws, '.git', 'modules', 'vendor', 'lib', 'config'), extraheader);
    writeFileSync(path.join(ws, '.git-credentials'), 'https://x-access-token:ghs_secret@github.com\n');
    writeFileSync(path.join(ws, '.aws', 'credentials'), '[default]\naws_secret_access_key = x\n');
    writeFileSync(path.join(ws, 'src', 'config', 'credentials'), 'not a credential store: a page of the docs\n');
    writeFileSync(path.join(ws, 'config'), 'plain\n');
    tools = createToolExecutor({ workspace: new NodeWorkspace(ws), shell: new NodeShell() }, { homeDir: path.join(base, 'home') });
  });
  after(() => rmSync(base, { recursive: true, force: true }));

  it('the matcher names .git/config (a submodule\'s too), .git-credentials and .aws/credentials, by path and in a walk; a file merely named config or credentials is not', () => {
    const sensitive = sensitiveFileMatcher();
    const cases: Array<[string, string | undefined]> = [
      ['.git/config', '.git/config'],
      ['packages/api/.git/config', '.git/config'],
      ['.git/modules/vendor/lib/config', '.git/config'],
      ['/home/runner/work/widgets/widgets/.git/config', '.git/config'],
      ['.git-credentials', '.git-credentials'],
      ['/root/.git-credentials', '.git-credentials'],
      ['.aws/credentials', '.aws/credentials'],
      ['/home/u/.aws/credentials', '.aws/credentials'],
      ['config', undefined],
      ['.git/HEAD', undefined],
      ['src/config/credentials', undefined],
      ['git/config', undefined],
    ];
    for (const [file, pattern] of cases) {
      assert.equal(sensitive(file), pattern, file);
      assert.equal(sensitive.inWalk(path.basename(file), () => file), pattern, `${file} in a walk`);
    }
  });

  it('read_file of .git/config asks in acceptEdits, naming why; other files read as before', async () => {
    const decide = async (file: string) => {
      const assessment = await tools.assess('read_file', { path: file });
      return { assessment, outcome: new PermissionPolicy('acceptEdits', {}).decide({ toolName: 'read_file', readOnly: true, assessment }) };
    };
    for (const file of ['.git/config', '.git/modules/vendor/lib/config', '.git-credentials', '.aws/credentials']) {
      const { assessment, outcome } = await decide(file);
      assert.match(assessment.sensitive ?? '', /may hold secrets/, file);
      assert.equal(outcome.kind, 'ask', `${file} is read unasked`);
    }
    for (const file of ['config', 'src/config/credentials']) {
      const { outcome } = await decide(file);
      assert.equal(outcome.kind, 'allow', file);
    }
  });
});
