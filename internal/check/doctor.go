package check

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/hooks"
	"github.com/contextfs/contextfs/internal/buildinfo"
	"github.com/contextfs/contextfs/internal/config"
	"github.com/contextfs/contextfs/internal/embed"
	"github.com/contextfs/contextfs/internal/printable"
	"github.com/contextfs/contextfs/internal/secrets"
)

// Diagnosis is one thing a doctor run looked at: the setup a repository
// needs for contextfs to work (binary, hooks, merge driver, config,
// cache, memories). contextfs.Doctor runs them all.
type Diagnosis struct {
	Name string `json:"name"`
	// OK is false for a failure, which makes doctor exit 1.
	OK bool `json:"ok"`
	// Warning marks something that works but deserves attention, such as
	// hooks not installed; it does not change the exit status.
	Warning bool   `json:"warning,omitempty"`
	Message string `json:"message"`
	// Fixable reports that doctor --fix can repair it.
	Fixable bool `json:"fixable"`
}

// Binary looks for git-contextfs where the hooks look for it, and
// compares its version with version, the running one's: the hooks run that binary, not
// necessarily this one.
func Binary(ctx context.Context, version string, hooksInstalled bool) Diagnosis {
	c := Diagnosis{Name: "git-contextfs", OK: true}
	p, err := exec.LookPath("git-contextfs")
	if err != nil {
		c.Message = "not on PATH: the hooks skip their work without it"
		c.OK, c.Warning = !hooksInstalled, true
		return c
	}
	if self, err := os.Executable(); err == nil && sameFile(self, p) {
		c.Message = fmt.Sprintf("%s, version %s", p, version)
		return c
	}
	v, err := versionLine(ctx, p)
	if err != nil {
		c.OK, c.Message = false, err.Error()
		return c
	}
	v = buildinfo.VersionOf(v)
	c.Message = fmt.Sprintf("%s, version %s", p, v)
	if v != version {
		c.Warning = true
		c.Message += fmt.Sprintf(" (this is version %s: the hooks run the one on PATH)", version)
	}
	return c
}

// sameFile reports whether two paths name the same file.
func sameFile(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// Hooks judges the hooks' states. Hooks not installed are a warning,
// since contextfs works without them; hooks installed but outdated or
// not executable are a failure, since they do not do what they claim.
func Hooks(states []hooks.State, err error) Diagnosis {
	c := Diagnosis{Name: "hooks", OK: true, Fixable: true}
	if err != nil {
		c.OK, c.Fixable, c.Message = false, false, err.Error()
		return c
	}
	var missing, outdated, noexec []string
	for _, s := range states {
		switch {
		case s.ViaFramework:
		case !s.Installed:
			missing = append(missing, s.Name)
		case s.Outdated:
			outdated = append(outdated, s.Name)
		case !s.Executable:
			noexec = append(noexec, s.Name)
		}
	}
	var msgs []string
	if len(outdated) > 0 {
		c.OK = false
		msgs = append(msgs, "outdated (written by another version of contextfs): "+strings.Join(outdated, ", "))
	}
	if len(noexec) > 0 {
		c.OK = false
		msgs = append(msgs, "not executable, so git skips them: "+strings.Join(noexec, ", "))
	}
	switch {
	case len(missing) > 0 && len(missing) < len(states) && slices.Contains(missing, "pre-commit"):
		// Installed once, then overwritten (a hook manager's install):
		// the user believes commits are checked, and they are not.
		c.OK = false
		msgs = append(msgs, "pre-commit is not installed while the other hooks are, so commits are no longer checked for invalid memories and secrets (did a hook manager overwrite it?); run git contextfs hooks install")
		if len(missing) > 1 {
			msgs = append(msgs, "not installed: "+strings.Join(missing, ", "))
		}
	case len(missing) == len(states):
		c.Warning = true
		msgs = append(msgs, "not installed: the cache is refreshed by each command instead, and commits are not checked")
	case len(missing) > 0:
		c.Warning = true
		msgs = append(msgs, "not installed: "+strings.Join(missing, ", "))
	}
	if len(msgs) == 0 {
		dir := ""
		if len(states) > 0 {
			dir = filepath.Dir(states[0].Path)
		}
		msgs = append(msgs, fmt.Sprintf("%d installed in %s", len(states), printable.Path(dir)))
	}
	c.Message = strings.Join(msgs, "; ")
	return c
}

// MergeDriver reports on the merge driver. Without it memories still
// merge as text, so its absence is a warning.
func MergeDriver(ctx context.Context, root string) Diagnosis {
	c := Diagnosis{Name: "merge-driver", OK: true, Fixable: true}
	md, err := hooks.CheckMergeDriver(ctx, root)
	if err != nil {
		c.OK, c.Fixable, c.Message = false, false, err.Error()
		return c
	}
	c.Message = DescribeMergeDriver(md, nil)
	c.Warning = !md.Configured || !md.Attributes
	if c.Warning {
		c.Message += "; memories merge as plain text: " + mergeDriverRemedy(md)
	}
	return c
}

// mergeDriverRemedy names the command that registers what md lacks.
// install writes the driver to the global config only: it adds no
// .gitattributes line, and a clone's own config (an older version's
// driver) overrides it; doctor --fix registers both in this clone.
func mergeDriverRemedy(md hooks.MergeDriverState) string {
	attrs := ""
	if !md.Attributes {
		attrs = " and add the line to .gitattributes (commit it)"
	}
	switch {
	case md.Configured:
		return "run git contextfs doctor --fix to add the line to .gitattributes, then commit it"
	case md.Driver != "":
		return "run git contextfs doctor --fix to register this version's driver in this clone" + attrs
	case !md.Attributes:
		return "run git contextfs doctor --fix to register the driver in this clone" + attrs + "; git contextfs install registers the driver once per user, for every clone"
	}
	return "run git contextfs install (once per user, for every clone) or git contextfs doctor --fix (this clone)"
}

// DescribeMergeDriver describes the merge driver's registration in a few words.
func DescribeMergeDriver(md hooks.MergeDriverState, err error) string {
	switch {
	case err != nil:
		return "unknown: " + err.Error()
	case md.Configured && md.Attributes:
		return "registered"
	case !md.Configured && !md.Attributes:
		return "not registered"
	case !md.Configured && md.Driver != "":
		return fmt.Sprintf("merge.contextfs.driver is %q, not this version's", md.Driver)
	case !md.Configured:
		return "not configured in this clone (git config merge.contextfs.driver)"
	default:
		return "configured, but .gitattributes does not route memories to it"
	}
}

// Config reports on .contextfs/config.yaml; ok is false when it is
// invalid, which stops every command.
func Config(repo *gitstore.Repo) (Diagnosis, bool) {
	rel := gitstore.Dir + "/" + gitstore.ConfigFile
	c := Diagnosis{Name: "config", OK: true}
	cfg, err := config.Load(repo)
	if err != nil {
		c.OK, c.Message = false, err.Error()
		return c, false
	}
	if _, err := Scanner(cfg.Secrets); err != nil {
		c.OK, c.Message = false, err.Error()
		return c, true
	}
	if _, err := os.Stat(filepath.Join(repo.MemoryDir(), gitstore.ConfigFile)); errors.Is(err, fs.ErrNotExist) {
		c.Warning, c.Fixable = true, true
		c.Message = "no " + rel + ": the defaults apply (--fix writes them, commented)"
		return c, true
	}
	c.Message = rel + " is valid"
	// Keys this release does not know, and settings only a trusted clone
	// may make, work as if absent: a warning, which --fix leaves to you.
	if len(cfg.Unknown) > 0 {
		c.Warning = true
		c.Message += fmt.Sprintf("; unknown key(s) ignored: %s (from a newer contextfs, or a typo)", strings.Join(cfg.Unknown, ", "))
	}
	if len(cfg.Ignored) > 0 {
		c.Warning = true
		c.Message += fmt.Sprintf("; %s ignored, this clone not being trusted (%s trusts it)", strings.Join(cfg.Ignored, ", "), config.TrustCommand)
	}
	return c, true
}

// Memories validates every memory file.
func Memories(repo *gitstore.Repo) Diagnosis {
	c := Diagnosis{Name: "memories", OK: true}
	var sc *secrets.Scanner
	if cfg, err := config.Load(repo); err == nil {
		sc, _ = Scanner(cfg.Secrets) // a bad allow list fails the config check
	}
	if sc == nil {
		sc, _ = secrets.NewScanner(secrets.Allow{})
	}
	probs, n, err := ValidateWithSecrets(repo, nil, sc)
	if err != nil {
		c.OK, c.Message = false, err.Error()
		return c
	}
	if len(probs) == 0 {
		c.Message = fmt.Sprintf("%d memory file(s), all valid", n)
		// Temp files of interrupted writes are not memories, so validate
		// passes them; they are cleaned by age, but say they are there.
		if temps := tempFiles(repo); len(temps) > 0 {
			c.Warning = true
			c.Message += fmt.Sprintf("; %d temporary file(s) of an interrupted write (first: %s), removed by the next save once an hour old", len(temps), printable.Path(temps[0]))
		}
		return c
	}
	files := map[string]bool{}
	for _, p := range probs {
		files[p.Path] = true
	}
	c.OK = false
	c.Message = fmt.Sprintf("%d of %d memory file(s) invalid or holding a secret (first: %s); run git contextfs validate", len(files), n, probs[0])
	return c
}

// tempFiles lists the temporary files of interrupted writes under
// .contextfs/.
func tempFiles(repo *gitstore.Repo) []string {
	odd, _ := repo.Oddities()
	var out []string
	for _, o := range odd {
		if o.Kind == gitstore.OddTemp {
			out = append(out, o.Path)
		}
	}
	return out
}

// Embedder reports which embedder the store uses and, for provider openai,
// whether the program that makes its requests is installed and speaks
// this build's protocol: without it every search and save that needs a
// vector fails. The server itself is not asked (doctor stays offline);
// one that is down is reported by the first command that needs it.
func Embedder(ctx context.Context, e embed.Embedder) Diagnosis {
	c := Diagnosis{Name: "embedder", OK: true}
	prog, ok := e.(embed.ProgramEmbedder)
	if !ok {
		c.Message = e.Model()
		return c
	}
	path, err := prog.Program()
	if err != nil {
		c.OK, c.Message = false, strings.TrimPrefix(err.Error(), "embed: ")
		return c
	}
	c.Message = fmt.Sprintf("%s at %s, through %s", e.Model(), prog.Endpoint(), path)
	v, err := versionLine(ctx, path)
	if err != nil {
		c.OK, c.Message = false, err.Error()
		return c
	}
	if want := fmt.Sprintf("(protocol %d)", embed.ProtocolVersion); !strings.Contains(v, want) {
		c.OK = false
		c.Message = fmt.Sprintf("%s speaks another protocol than this build's %d (%s); install both from one build (make install)",
			path, embed.ProtocolVersion, v)
	}
	return c
}

// versionLine runs the program at path with --version and returns what
// it printed, or an error saying it does not run.
func versionLine(ctx context.Context, path string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s does not run: %v", path, err)
	}
	return strings.TrimSpace(string(out)), nil
}
