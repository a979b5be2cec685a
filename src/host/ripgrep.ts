import { existsSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';

/** The ripgrep binary VS Code ships (its search uses it too), or undefined for the JS fallback. */
export function bundledRipgrep(): string | undefined {
  const exe = process.platform === 'win32' ? 'rg.exe' : 'rg';
  for (const modules of ['node_modules', 'node_modules.asar.unpacked']) {
    const candidate = path.join(vscode.env.appRoot, modules, '@vscode', 'ripgrep', 'bin', exe);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}
