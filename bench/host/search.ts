// Runs inside the real VS Code extension host (see bench/host/run-in-host.ts):
// the search scale bench through the tools as the host builds them (files via
// vscode.workspace.fs, ripgrep from VS Code's own install run by the
// terminal's child shell) against raw ripgrep spawned from the same process.
import * as vscode from 'vscode';
import { TerminalShell } from '../../src/host/terminal/terminal-shell';
import { VsCodeWorkspace, vscodeRipgrepPath } from '../../src/host/vscode-workspace';
import { createToolExecutor } from '../../src/tools/registry';
import { measureSearch, type SearchFigures } from '../scale/search-measure';

export async function run(): Promise<void> {
  try {
    const trees = JSON.parse(process.env.TURNSTONE_BENCH_TREES ?? '[]') as { files: number; root: string; runs: number }[];
    const rg = vscodeRipgrepPath();
    if (!rg) throw new Error(`no ripgrep in VS Code's install (${vscode.env.appRoot})`);
    const out: SearchFigures[] = [];
    for (const tree of trees) {
      const shell = new TerminalShell({ name: 'Turnstone bench' });
      // As src/host/tools.ts builds it for a trusted local folder.
      const executor = createToolExecutor({ workspace: new VsCodeWorkspace([vscode.Uri.file(tree.root)]), shell }, { ripgrepPath: rg });
      out.push(await measureSearch(executor, rg, tree.root, tree.files, tree.runs));
      shell.dispose();
    }
    console.log(`TURNSTONE_BENCH ${JSON.stringify({ rg, trees: out })}`);
  } catch (error) {
    console.log(`TURNSTONE_BENCH_FAILED ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  }
}
