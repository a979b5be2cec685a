// Runs inside the real VS Code extension host (code-server or desktop VS Code):
// the workbench loads this module through `extensionTestsPath` and calls run().
import * as fs from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';

export async function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 60_000, reporter: 'spec' });
  const grep = process.env.TURNSTONE_TEST_GREP;
  if (grep) mocha.grep(grep);
  const dir = __dirname;
  for (const file of fs.readdirSync(dir).sort()) {
    if (file.endsWith('.test.js')) mocha.addFile(path.join(dir, file));
  }
  await new Promise<void>((resolve, reject) => {
    mocha.run((failures) => {
      // The runner on the Node side reads this line; the spec reporter's own summary can be cut by log forwarding.
      console.log(`TURNSTONE_MOCHA_RESULT ${JSON.stringify({ failures })}`);
      if (failures > 0) reject(new Error(`${failures} integration test(s) failed`));
      else resolve();
    });
  });
}
