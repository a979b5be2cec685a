// What most integration files set up alike: the scripted API, Turnstone activated and pointed at it with the
// file's settings, dialogs answered by the tests, and one fresh session shown with the other files' sessions
// closed (the review and the Sessions view list every open session of the window).
import * as vscode from 'vscode';
import type { TurnstoneApi } from '../../src/extension';
import { MockAnthropicServer } from '../fixtures/mock-anthropic';

export interface MockApiRig {
  server: MockAnthropicServer;
  turnstone: TurnstoneApi;
}

const config = () => vscode.workspace.getConfiguration('turnstone');

/** Closes every open session but the shown one. */
export async function closeOtherSessions(turnstone: TurnstoneApi): Promise<void> {
  for (const s of turnstone.sessions()) if (!s.shown) await vscode.commands.executeCommand('turnstone.sessions.remove', s.key, { confirm: false });
}

/**
 * Registers before/after hooks in the calling describe (so its own hooks run after these): `settings` are
 * turnstone.* keys without the prefix, set globally before and unset after, with `alsoUnset` (keys the tests
 * set themselves). The rig's fields are filled in by the time the describe's own `before` runs.
 */
export function useMockApi(settings: Record<string, unknown> = {}, alsoUnset: readonly string[] = []): MockApiRig {
  const rig = {} as MockApiRig;
  before(async () => {
    rig.server = await MockAnthropicServer.start();
    rig.turnstone = await vscode.extensions.getExtension<TurnstoneApi>('turnstone.turnstone')!.activate();
    await config().update('baseUrl', rig.server.url, vscode.ConfigurationTarget.Global);
    for (const [key, value] of Object.entries(settings)) await config().update(key, value, vscode.ConfigurationTarget.Global);
    rig.turnstone.setDialogsEnabled(false);
    await vscode.commands.executeCommand('turnstone.newSession');
    await closeOtherSessions(rig.turnstone);
  });
  after(async () => {
    for (const key of new Set(['baseUrl', ...Object.keys(settings), ...alsoUnset])) await config().update(key, undefined, vscode.ConfigurationTarget.Global);
    rig.turnstone?.setDialogsEnabled(true);
    await rig.server?.close();
  });
  return rig;
}
