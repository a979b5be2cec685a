// MCP tools as a tool source beside the built-in six: one ToolExecutor the loop
// sees, so MCP tool uses go through the same dispatch (hooks, permission policy,
// prompt) as every other tool. MCP tools always need the "command" permission:
// the default is to ask, and a tool's readOnlyHint (the server's own claim)
// never approves a call by itself.
import { type McpManager } from '../runtime/mcp/manager';
import { isMcpToolName, sanitizeName } from '../runtime/mcp/names';
import { resultText } from '../runtime/mcp/result';
import { type ToolContext, type ToolDefinition, type ToolExecutor, ToolInputError, type ToolOutput, type ToolUseAssessment } from '../runtime/types';
import { cutMiddle } from '../runtime/text-cut';
import { DEFAULT_LIMITS } from './registry';

export interface McpToolOptions {
  /** Characters of a result kept for the model (head and tail, like bash). */
  maxOutputChars?: number;
}

export function withMcpTools(base: ToolExecutor, mcp: McpManager, options: McpToolOptions = {}): ToolExecutor {
  const maxChars = options.maxOutputChars ?? DEFAULT_LIMITS.maxOutputChars;
  let baseDefs: ToolDefinition[] | undefined;
  let mcpDefs: ToolDefinition[] | undefined;
  let merged: ToolDefinition[] = [];
  const mcpTool = (name: string) => (isMcpToolName(name) ? mcp.lookup(name) : undefined);
  return {
    definitions() {
      // Re-merged only when either list changed: this runs on every step.
      const b = base.definitions();
      const m = mcp.definitions();
      if (b !== baseDefs || m !== mcpDefs) {
        baseDefs = b;
        mcpDefs = m;
        merged = m.length === 0 ? b : [...b, ...m];
      }
      return merged;
    },
    isReadOnly(name) {
      const builtIn = base.isReadOnly(name);
      if (builtIn !== undefined) return builtIn;
      // False: MCP tool uses run one at a time, and never count as reads.
      return mcpTool(name) ? false : undefined;
    },
    async assess(name, input): Promise<ToolUseAssessment> {
      const tool = mcpTool(name);
      if (!tool) return base.assess(name, input);
      const problem = tool.check(input);
      if (problem) throw new ToolInputError(`the input does not match the schema of ${tool.tool} (MCP server ${tool.server}): ${problem}`);
      // No subject: rules name MCP tools whole (mcp__srv__tool, mcp__srv__*, mcp__srv); server-wide rules go by the real server.
      return { need: 'command', subject: '', mcpServer: sanitizeName(tool.server) };
    },
    ...(base.preview ? { preview: base.preview.bind(base) } : {}),
    async execute(name, input, ctx: ToolContext): Promise<ToolOutput> {
      if (!mcpTool(name)) return base.execute(name, input, ctx);
      try {
        const { result, server } = await mcp.call(name, input, { signal: ctx.signal, ...(ctx.onProgress ? { onProgress: ctx.onProgress } : {}) });
        const { text, images, isError } = resultText(result);
        return { content: truncate(server.clean(text), maxChars), ...(images.length > 0 ? { images } : {}), isError };
      } catch (error) {
        if (ctx.signal.aborted) throw error;
        return { content: error instanceof Error ? error.message : String(error), isError: true };
      }
    },
    async prepareStep(signal) {
      await Promise.all([base.prepareStep?.(signal), mcp.prepareStep(signal)]);
    },
  };
}

function truncate(text: string, maxChars: number): string {
  const { head, tail, omitted } = cutMiddle(text, maxChars, { headShare: 0.4 });
  if (!omitted) return head;
  return `${head}\n\n[… ${omitted} characters of the MCP tool's output omitted …]\n\n${tail}`;
}
