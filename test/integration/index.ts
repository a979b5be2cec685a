// Runs inside the real VS Code extension host (code-server or desktop VS Code):
// the workbench loads this module through `extensionTestsPath` and calls run().
import * as fs from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';
import { collectResult } from '../support/result-reporter.cjs';

export async function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 60_000, reporter: 'spec', forbidOnly: true });
  const grep = process.env.TURNSTONE_TEST_GREP;
  if (grep) mocha.grep(grep);
  const dir = __dirname;
  for (const file of fs.readdirSync(dir).sort()) {
    if (file.endsWith('.test.js')) mocha.addFile(path.join(dir, file));
  }
  await new Promise<void>((resolve, reject) => {
    const runner = mocha.run((failures) => {
      if (failures > 0) reject(new Error(`${failures} integration test(s) failed`));
      else resolve();
    });
    // The counts go to a file the Node-side runner reads after the host exits: log
    // forwarding from the extension host can cut or drop the last console lines.
    collectResult(runner, (result) => {
      const file = process.env.TURNSTONE_RESULT_FILE;
      if (file) fs.writeFileSync(file, JSON.stringify(result));
    });
  });
}
