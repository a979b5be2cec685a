// Issue 46: what enabled plugins add to a turn's start. 20 generated plugins in Claude Code's layout, each with
// 5 commands, 5 skills, an agent, a hook and an MCP server definition (200 commands and skills in all), read the
// way the CLI's --plugin-dir and the editor's enabled plugins are read before a turn: every plugin folder read
// (loadPlugins), their parts gathered (pluginParts), their MCP servers parsed into a layer and their skills put
// into the system prompt's section. Cold reads (a fresh call each run; the OS's file cache warm, as it is from
// the second turn on). Target: median < 20 ms. No baseline: without plugins this work is not done at all.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadPlugins, pluginParts } from '../src/agent/plugins/plugin-reader';
import { pluginServerLayer } from '../src/agent/plugins/plugin-mcp';
import { skillPromptSection } from '../src/runtime/context/skills';
import { round, sample, type BenchResult } from './lib';

const PLUGINS = 20;
const PER_PLUGIN = 5;

function put(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

function generate(root: string): string[] {
  const dirs: string[] = [];
  for (let p = 0; p < PLUGINS; p++) {
    const dir = path.join(root, `plugin-${p}`);
    dirs.push(dir);
    put(path.join(dir, '.claude-plugin', 'plugin.json'), JSON.stringify({ name: `plugin-${p}`, version: '1.0.0', description: `Generated plugin ${p}` }));
    for (let i = 0; i < PER_PLUGIN; i++) {
      put(path.join(dir, 'commands', `command-${i}.md`), `---\ndescription: Command ${i} of plugin ${p}\n---\nDo task ${i} with $ARGUMENTS.\n${'Some instructions. '.repeat(40)}\n`);
      put(path.join(dir, 'skills', `skill-${i}`, 'SKILL.md'), `---\nname: skill-${i}\ndescription: Skill ${i} of plugin ${p}: use it for generated task ${i}\n---\n${'Steps of the skill. '.repeat(60)}\n`);
    }
    put(path.join(dir, 'agents', 'helper.md'), `---\nname: helper\ndescription: Helper agent of plugin ${p}\ntools: read_file\n---\nYou help with plugin ${p}.\n`);
    put(path.join(dir, 'hooks', 'hooks.json'), JSON.stringify({ hooks: { PostToolUse: [{ matcher: 'Write|Edit', hooks: [{ type: 'command', command: 'sh "${CLAUDE_PLUGIN_ROOT}/hooks/fmt.sh"' }] }] } }));
    put(path.join(dir, '.mcp.json'), JSON.stringify({ mcpServers: { [`server-${p}`]: { command: 'node', args: ['${CLAUDE_PLUGIN_ROOT}/server.js'] } } }));
  }
  return dirs;
}

export default async function (): Promise<BenchResult[]> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'turnstone-bench-plugins-'));
  try {
    const dirs = generate(root);
    let counts = { commands: 0, skills: 0, agents: 0, servers: 0 };
    const s = await sample(
      async () => {
        const set = await loadPlugins(dirs);
        const parts = pluginParts(set);
        const layer = pluginServerLayer(set, { workspaceFolder: root, env: {} });
        skillPromptSection(parts.skills);
        counts = { commands: parts.commands.length, skills: parts.skills.length, agents: parts.agents.length, servers: layer.servers.length };
      },
      15,
      3,
    );
    if (counts.commands + counts.skills !== PLUGINS * PER_PLUGIN * 2) throw new Error(`read ${JSON.stringify(counts)}`);
    return [
      {
        name: 'plugins: 20 plugins with 200 commands and skills at a turn\'s start',
        measured: `loadPlugins of ${PLUGINS} generated plugin folders (${PER_PLUGIN} commands, ${PER_PLUGIN} skills, an agent, a hook and an MCP server each), pluginParts, the MCP layer and the skills' prompt section`,
        unit: 'ms',
        ours: round(s.median),
        baseline: null,
        ratio: null,
        target: '< 20 ms',
        pass: s.median < 20,
        min: round(s.min),
        max: round(s.max),
        extra: counts,
      },
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
