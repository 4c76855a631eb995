// parse.mjs reads Mermaid diagrams from the files named on the command line
// (or one from stdin) and parses each with the Mermaid library itself.
// It exits 0 when every diagram parses and 1, naming the diagram and the
// parser's message, when one does not. Mermaid's sanitiser (DOMPurify)
// needs a DOM, so a jsdom window stands in for the browser.
import { readFileSync } from "node:fs";
import { JSDOM } from "jsdom";

const { window } = new JSDOM("");
globalThis.window = window;
globalThis.document = window.document;
globalThis.DOMPurify = undefined;

const { default: mermaid } = await import("mermaid");
mermaid.initialize({ startOnLoad: false });

const inputs = process.argv.length > 2
  ? process.argv.slice(2).map((f) => [f, readFileSync(f, "utf8")])
  : [["stdin", readFileSync(0, "utf8")]];
let failed = false;
for (const [name, text] of inputs) {
  try {
    const res = await mermaid.parse(text);
    console.log(`${name}: ok (${res.diagramType})`);
  } catch (err) {
    failed = true;
    console.error(`${name}: ${err.message ?? err}`);
  }
}
process.exit(failed ? 1 : 0);
