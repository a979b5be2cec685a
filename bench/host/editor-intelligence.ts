// Runs inside the real VS Code extension host (see bench/host/run-in-host.ts):
// issue 30's two figures through the tools as src/host/tools.ts builds them.
//  - edit_file on a plain-text file (no language has problems to report for it)
//    with diagnostics after edits on (waitMs 2000) and off, interleaved: what the
//    diagnostics wait adds when the language has no provider.
//  - lsp references on a small TypeScript project through the built-in
//    TypeScript features, once its server has answered a first time.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { HostCodeNavigation } from '../../src/host/language/code-navigation';
import { HostEditDiagnostics } from '../../src/host/language/edit-diagnostics';
import { LanguageCoverage } from '../../src/host/language/language-coverage';
import { VsCodeWorkspace } from '../../src/host/vscode-workspace';
import { createToolExecutor } from '../../src/tools/registry';

export interface EditorIntelligenceFigures {
  editWith: number[];
  editWithout: number[];
  /** The whole of what the wait adds before an edit of a file no provider covers: deciding there is nothing to watch. */
  watch: number[];
  references: number[];
  referencesFirstMs: number;
  referencesText: string;
}

const RUNS = 15;
const signal = new AbortController().signal;

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

export async function run(): Promise<void> {
  try {
    const root = vscode.workspace.workspaceFolders![0]!.uri;
    const dir = path.join(root.fsPath, 'bench-30');
    fs.mkdirSync(path.join(dir, 'tsp'), { recursive: true });
    // One file per executor: each keeps its own record of what it read, and an edit by the other would make it stale.
    const notes = Array.from({ length: 200 }, (_, i) => `line ${i} of plain words`).join('\n') + '\nstate: A\n';
    for (const name of ['on', 'off']) fs.writeFileSync(path.join(dir, `notes-${name}.txt`), notes);
    fs.writeFileSync(path.join(dir, 'tsp', 'tsconfig.json'), '{ "compilerOptions": { "strict": true, "noEmit": true }, "include": ["*.ts"] }\n');
    fs.writeFileSync(path.join(dir, 'tsp', 'lib.ts'), 'export function area(w: number, h: number): number {\n  return w * h;\n}\n');
    for (let i = 0; i < 10; i++) fs.writeFileSync(path.join(dir, 'tsp', `use${i}.ts`), `import { area } from './lib';\nexport const size${i} = area(${i}, 3) + area(1, ${i});\n`);

    const files = new VsCodeWorkspace([root]);
    const toUri = (p: string) => files.toUri(p);
    const coverage = new LanguageCoverage();
    const diagnostics = new HostEditDiagnostics(toUri, { afterEdit: true, waitMs: 2000 }, coverage);
    const withDiagnostics = createToolExecutor({ workspace: files, diagnostics, navigation: new HostCodeNavigation(toUri) });
    const withoutDiagnostics = createToolExecutor({ workspace: new VsCodeWorkspace([root]) });

    // Each executor reads its file once (edits need a read first), then toggles one line of it.
    const states = new Map<typeof withDiagnostics, { file: string; state: string }>([
      [withDiagnostics, { file: 'bench-30/notes-on.txt', state: 'A' }],
      [withoutDiagnostics, { file: 'bench-30/notes-off.txt', state: 'A' }],
    ]);
    const edit = async (executor: typeof withDiagnostics) => {
      const s = states.get(executor)!;
      const next = s.state === 'A' ? 'B' : 'A';
      const out = await executor.execute('edit_file', { path: s.file, old_string: `state: ${s.state}`, new_string: `state: ${next}` }, { signal });
      if (out.isError) throw new Error(`edit_file failed: ${out.content}`);
      s.state = next;
    };
    for (const [executor, s] of states) await executor.execute('read_file', { path: s.file }, { signal });
    for (let i = 0; i < 3; i++) {
      await edit(withDiagnostics);
      await edit(withoutDiagnostics);
    }
    const editWith: number[] = [];
    const editWithout: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      // Alternating which goes first, so neither always runs on a warmer cache.
      if (i % 2 === 0) {
        editWith.push(await timed(() => edit(withDiagnostics)));
        editWithout.push(await timed(() => edit(withoutDiagnostics)));
      } else {
        editWithout.push(await timed(() => edit(withoutDiagnostics)));
        editWith.push(await timed(() => edit(withDiagnostics)));
      }
    }

    const watch: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      // The absolute path, as edit_file passes it once it has resolved the input.
      let found: unknown;
      watch.push(await timed(async () => (found = await diagnostics.watch(path.join(dir, 'notes-on.txt'), signal))));
      if (found !== undefined) throw new Error('the diagnostics wait watched a plain-text file: its language has no provider');
    }

    // The TypeScript server starts on the first request; the figure is for a project it has loaded.
    const references = () => withDiagnostics.execute('lsp', { operation: 'references', path: 'bench-30/tsp/lib.ts', line: 1, symbol: 'area' }, { signal });
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(vscode.Uri.file(path.join(dir, 'tsp', 'lib.ts'))), { preview: false });
    const firstStart = performance.now();
    let text = '';
    while (!text.includes('use9.ts')) {
      if (performance.now() - firstStart > 240_000) throw new Error(`lsp references never listed use9.ts:\n${text}`);
      text = (await references()).content;
    }
    const referencesFirstMs = performance.now() - firstStart;
    const refs: number[] = [];
    for (let i = 0; i < RUNS; i++) refs.push(await timed(references));
    coverage.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
    const figures: EditorIntelligenceFigures = { editWith, editWithout, watch, references: refs, referencesFirstMs, referencesText: text.slice(0, 2000) };
    console.log(`TURNSTONE_BENCH ${JSON.stringify(figures)}`);
  } catch (error) {
    console.log(`TURNSTONE_BENCH_FAILED ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  }
}
