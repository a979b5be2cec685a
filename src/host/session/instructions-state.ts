// Project instructions in the editor (contracts.md "Project instructions"):
// read before each turn into its system prompt, shown in the panel's header
// chip, noted in the log when something was cut or skipped.
import * as os from 'node:os';
import * as vscode from 'vscode';
import { loadProjectInstructions, type ProjectInstructions } from '../../runtime/context/instructions';
import { type HostEvent } from '../../webview/protocol';
import { readerRootPath, workspaceInstructionReader } from './instruction-reader';
import { loadCore } from './load-core';
import { hostSensitiveMatcher } from '../panel/load-panel-support';
import { refreshHostSkills } from '../context/skills';
import { type PathScopedInstructions } from '../../runtime/context/path-scoped';

export class InstructionsState {
  private found: ProjectInstructions | undefined;
  private loggedKey = '';
  /** The chat session's path-scoped rules and which were sent (issue 46); made with the first turn (core is loaded late). */
  pathScoped: PathScopedInstructions | undefined;

  constructor(
    private readonly post: (event: HostEvent) => void,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /** Reads the files now, tells the panel, and logs what changed since the last read. */
  async refresh(): Promise<ProjectInstructions> {
    const root = workspaceRoot();
    const found = root
      ? await loadProjectInstructions(workspaceInstructionReader(root), { workspaceRoot: readerRootPath(root), sensitive: hostSensitiveMatcher(), ...(root.scheme === 'file' ? { homeDir: os.homedir() } : {}) })
      : { files: [], notes: [], text: '' };
    this.found = found;
    const key = JSON.stringify([found.files.map((f) => [f.label, f.chars, f.included]), found.notes, vscode.workspace.isTrusted]);
    if (key !== this.loggedKey) {
      this.loggedKey = key;
      for (const note of found.notes) this.log.warn(`project instructions: ${note}`);
      if (found.files.length) this.log.info(`project instructions: ${found.files.map((f) => f.label).join(', ')}`);
    }
    this.postChip();
    return found;
  }

  /** Re-sends what the header chip shows (the panel reloaded). */
  postChip(): void {
    const found = this.found;
    if (!found) return;
    this.post({
      type: 'instructions',
      files: found.files.map((f) => ({ label: f.label, chars: f.chars, included: f.included })),
      notes: found.notes.slice(0, 20),
      restricted: !vscode.workspace.isTrusted,
      applied: (this.pathScoped?.applied ?? []).slice(0, 100),
    });
  }

  /** The file behind a label the panel sent, if it is one of the files in use (the panel cannot name others). */
  fileOf(label: string): string | undefined {
    return this.found?.files.find((f) => f.label === label)?.path;
  }

  /** The system prompt of a turn starting now: re-read, so an edited AGENTS.md reaches the next turn. */
  async systemPrompt(): Promise<string> {
    const found = await this.refresh().catch((error: unknown) => {
      this.log.warn(`project instructions could not be read: ${String(error)}`);
      return undefined;
    });
    // The skills' names and descriptions go into the prompt; the same list serves the turn's tools.
    const skills = await refreshHostSkills(this.log).catch((error: unknown) => {
      this.log.warn(`skills could not be read: ${String(error)}`);
      return undefined;
    });
    const root = workspaceRoot();
    if (!this.pathScoped) {
      this.pathScoped = new (loadCore().PathScopedInstructions)();
      // A rule sent with a tool's result (or dropped by a compaction) shows in the chip as it happens.
      this.pathScoped.onDidChangeApplied = () => this.postChip();
    }
    if (root) this.pathScoped.update(found?.pathScoped, root.fsPath);
    return loadCore().buildSystemPrompt({
      workspaceRoot: workspaceRoot()?.fsPath ?? '(no folder open)',
      platform: process.platform,
      host: `VS Code ${vscode.version}`,
      date: new Date().toISOString().slice(0, 10),
      ...(found?.text ? { extra: found.text } : {}),
      ...(skills ? { skills: skills.skills } : {}),
    });
  }
}

function workspaceRoot(): vscode.Uri | undefined {
  return vscode.workspace.workspaceFolders?.[0]?.uri;
}
