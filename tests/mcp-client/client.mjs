// Drives the real git-contextfs MCP server over stdio with the official
// TypeScript SDK, as an agent client would: list the tools, prompts and
// resources, then run session start → save_memory → get_context →
// session log (append, read) → session end. Prints one JSON object on
// stdout for the Go test (cmd/git-contextfs/mcpclient_test.go) to check
// against the files.
//
//   node client.mjs /path/to/git-contextfs /path/to/repo
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [bin, repo] = process.argv.slice(2);
if (!bin || !repo) {
  console.error("usage: node client.mjs BINARY REPO");
  process.exit(2);
}

const transport = new StdioClientTransport({ command: bin, args: ["mcp"], cwd: repo, stderr: "inherit" });
const client = new Client({ name: "ts-sdk-test", version: "1.0.0" });
await client.connect(transport);

async function call(name, args) {
  const res = await client.callTool({ name, arguments: args });
  if (res.isError) {
    throw new Error(`${name}: ${res.content.map((c) => c.text).join("\n")}`);
  }
  return res;
}

try {
  const tools = (await client.listTools()).tools.map((t) => t.name).sort();
  const prompts = (await client.listPrompts()).prompts.map((p) => p.name).sort();
  const resources = (await client.listResources()).resources.map((r) => r.uri).sort();
  const templates = (await client.listResourceTemplates()).resourceTemplates.map((r) => r.uriTemplate).sort();

  const started = await call("session", { action: "start", label: "ts client" });
  const saved = await call("save_memory", {
    type: "decision",
    content: "Tokens expire after one hour.",
    path: ["auth/**"],
    data: { decision: "1h tokens", status: "accepted" },
  });
  const context = await call("get_context", { task: "token lifetime", budget: 1500 });
  // The session's raw log, which the hooks' summaries read beside the
  // prompts: an append, then a read of the open session's log.
  await call("session", { action: "log", message: "user: how long should tokens live?" });
  const log = await call("session", { action: "log" });
  const ended = await call("session", { action: "end", summary: "Decided the token lifetime.", outcome: "success" });
  const prompt = await client.getPrompt({ name: "context", arguments: { task: "tokens" } });
  const resource = await client.readResource({ uri: "contextfs://memory/" + saved.structuredContent.id });

  console.log(JSON.stringify({
    tools, prompts, resources, templates,
    session: started.structuredContent.session.id,
    sessionTool: started.structuredContent.session.tool,
    saved: saved.structuredContent.id,
    contextText: context.content[0].text,
    sessionLog: log.structuredContent.log,
    summary: { ...ended.structuredContent.memory, saved: ended.structuredContent.saved },
    promptText: prompt.messages[0].content.text,
    resourceText: resource.contents[0].text,
  }));
} finally {
  await client.close();
}
