// `/memory` in the editor (contracts.md "Memory"): opens the folder of this workspace's memory notes in the
// OS's file manager. The folder is the one the turn factory gives the memory tool (agent/turn-context.ts):
// keyed by the tools' first root, under the extension's global storage unless turnstone.memory.dir says
// otherwise.
import { mkdir } from 'node:fs/promises';
import * as vscode from 'vscode';
import { memoryDirFor } from '../../tools/memory/memory-dir';
import { readSettings } from '../settings';

let base: string | undefined;

/** The extension's global storage, set at activation (commands.ts). */
export function setMemoryBase(dir: string): void {
  base = dir;
}

/** The tools' first root, as host/tools.ts gives it to VsCodeWorkspace (the global storage without folders). */
function toolsRoot(): string | undefined {
  const first = vscode.workspace.workspaceFolders?.[0]?.uri;
  if (first) return first.scheme === 'file' ? first.fsPath : first.path;
  return base;
}

/** This workspace's memory folder, or undefined when memory is off (or the extension is not set up yet). */
export function hostMemoryDir(): string | undefined {
  const root = toolsRoot();
  if (!root || !base) return undefined;
  return memoryDirFor(readSettings(), root, base);
}

export type MemoryFolderOutcome = { kind: 'ran' } | { kind: 'unavailable'; message: string };

/** Made if missing (0700, empty), then shown in the OS's file manager. */
export async function openMemoryFolder(): Promise<MemoryFolderOutcome> {
  const dir = hostMemoryDir();
  if (!dir) return { kind: 'unavailable', message: vscode.l10n.t('/memory: memory is turned off (turnstone.memory.enabled).') };
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await vscode.env.openExternal(vscode.Uri.file(dir));
  return { kind: 'ran' };
}
