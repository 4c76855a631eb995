// Command git-contextfs-embed makes the HTTP requests of the embedding
// provider "openai" for git-contextfs and git-contextfs-mcp, which start
// it on their first embedding and speak to it over a pipe (protocol:
// embed.ProtocolVersion). It is a program of its own so that net/http and
// its TLS stack are not linked into git-contextfs, which starts for every
// command and every git hook: git keeps HTTPS in git-remote-https for the
// same reason (docs/DESIGN.md, "Start-up").
//
// Exit codes: 0 when its input ends; 1 when reading or writing fails; 2
// when the command line is wrong or asks for another protocol.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/contextfs/contextfs/internal/buildinfo"
	"github.com/contextfs/contextfs/internal/embed"
	"github.com/contextfs/contextfs/internal/embed/openai"
)

// version is this build's version, as git-contextfs's is (package
// buildinfo): the Makefile sets it for all three programs at once.
var version = buildinfo.Version()

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}

const usage = `Usage: git-contextfs-embed --protocol N [--url URL] [--model NAME] [--batch N] [--timeout D]

Makes the requests of the embedding provider "openai" (any OpenAI-compatible
/v1/embeddings server: Ollama, LM Studio, llama.cpp's server, OpenAI). You do
not run it yourself: git-contextfs starts it, beside itself or on PATH, when
embedder.provider is openai, and reads and writes the protocol on its
standard input and output. The API key comes from the environment variable
` + embed.EnvProgramKey + `.

Examples:
  # what git-contextfs runs for the default settings (Ollama's all-minilm)
  git-contextfs-embed --protocol 1 --url http://localhost:11434/v1/embeddings --model all-minilm

  # one request by hand: the answer is a JSON line, then the vector's bytes
  echo '{"texts":["pooled database connections"]}' |
    git-contextfs-embed --protocol 1 | head -1

Flags:
`

// run runs the program with the command line args and returns the exit
// code.
func run(args []string, in io.Reader, out, errOut io.Writer, getenv func(string) string) int {
	fs := flag.NewFlagSet("git-contextfs-embed", flag.ContinueOnError)
	fs.SetOutput(errOut)
	fs.Usage = func() {
		fmt.Fprint(errOut, usage)
		fs.PrintDefaults()
	}
	protocol := fs.Int("protocol", 0, "the protocol version to speak (required; this build speaks `N`="+fmt.Sprint(embed.ProtocolVersion)+")")
	url := fs.String("url", embed.DefaultBaseURL, "the server's API root or embeddings `URL`")
	model := fs.String("model", embed.DefaultModel, "the model `NAME` to ask the server for")
	batch := fs.Int("batch", embed.DefaultBatchSize, "the most texts to send in one request (`N`)")
	timeout := fs.Duration("timeout", embed.DefaultTimeout, "how long to wait for each answer (`D`)")
	showVersion := fs.Bool("version", false, "print the version and exit")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *showVersion {
		fmt.Fprintf(out, "git-contextfs-embed version %s (protocol %d)\n", version, embed.ProtocolVersion)
		return 0
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(errOut, "git-contextfs-embed: takes no arguments, got %q\n", fs.Arg(0))
		return 2
	}
	if *protocol != embed.ProtocolVersion {
		fmt.Fprintf(errOut, "git-contextfs-embed: this build speaks protocol %d, not %d; "+
			"install git-contextfs and git-contextfs-embed from one build (make install)\n", embed.ProtocolVersion, *protocol)
		return 2
	}
	c, err := openai.New(embed.Config{
		Provider:  embed.ProviderOpenAI,
		BaseURL:   *url,
		Model:     *model,
		APIKey:    getenv(embed.EnvProgramKey),
		BatchSize: *batch,
		Timeout:   *timeout,
	})
	if err != nil {
		fmt.Fprintf(errOut, "git-contextfs-embed: %v\n", err)
		return 2
	}
	if err := embed.Serve(context.Background(), in, out, c); err != nil {
		fmt.Fprintf(errOut, "git-contextfs-embed: %v\n", err)
		return 1
	}
	return 0
}
