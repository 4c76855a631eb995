// Runs a list of MCP calls against one new git-contextfs MCP server process,
// with the official TypeScript SDK as the client, and prints what each call
// answered as one JSON array on stdout. The steps come as JSON on stdin:
//
//   [{"tool": "get_context", "args": {"task": "..."}},
//    {"prompt": "context", "args": {"task": "..."}}]
//
// Each answer is {isError, text, structured} for a tool, {text} for a
// prompt, or {error} when the call itself failed (a protocol error): the
// script never stops at a failed step, so the Go test that drives it
// (TestAgentDay* in cmd/git-contextfs) sees every answer and decides what is wrong. The server
// gets this process's environment (the SDK passes only a few variables
// by default), so that the test's isolated user store reaches it.
//
//   node steps.mjs /path/to/git-contextfs /path/to/repo < steps.json
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [bin, repo] = process.argv.slice(2);
if (!bin || !repo) {
  console.error("usage: node steps.mjs BINARY REPO < steps.json");
  process.exit(2);
}
const steps = JSON.parse(readFileSync(0, "utf8"));

const transport = new StdioClientTransport({
  command: bin,
  args: ["mcp"],
  cwd: repo,
  env: { ...process.env },
  stderr: "inherit",
});
const client = new Client({ name: "agentday", version: "1.0.0" });
await client.connect(transport);

const text = (content) => (content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");

const answers = [];
try {
  for (const step of steps) {
    try {
      if (step.tool) {
        const res = await client.callTool({ name: step.tool, arguments: step.args ?? {} });
        answers.push({ isError: Boolean(res.isError), text: text(res.content), structured: res.structuredContent ?? null });
      } else if (step.prompt) {
        const res = await client.getPrompt({ name: step.prompt, arguments: step.args ?? {} });
        answers.push({ text: res.messages.map((m) => (m.content.type === "text" ? m.content.text : "")).join("\n") });
      } else {
        answers.push({ error: "a step names neither a tool nor a prompt: " + JSON.stringify(step) });
      }
    } catch (err) {
      answers.push({ error: `${err.name}: ${err.message}${err.code !== undefined ? ` (code ${err.code})` : ""}` });
    }
  }
} finally {
  await client.close();
}
console.log(JSON.stringify(answers));
