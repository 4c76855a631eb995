// Reads a JSON array of texts on stdin and prints, for each, its token
// count in the tokenizers agents use: OpenAI's o200k_base and cl100k_base
// (gpt-tokenizer) and Anthropic's published Claude tokenizer
// (@anthropic-ai/tokenizer), as a JSON array of {o200k, cl100k, claude}.
import { encode as o200k } from 'gpt-tokenizer/encoding/o200k_base';
import { encode as cl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { countTokens as claude } from '@anthropic-ai/tokenizer';

let input = '';
process.stdin.setEncoding('utf8');
for await (const chunk of process.stdin) input += chunk;
const texts = JSON.parse(input);
const out = texts.map((t) => ({ o200k: o200k(t).length, cl100k: cl100k(t).length, claude: claude(t) }));
process.stdout.write(JSON.stringify(out) + '\n');
