package broken

import "strings"

// Normalize lower-cases and trims s.
func Normalize(s string) string {
	return strings.ToLower(strings.TrimSpace(s))
}

// Split is half-edited: the right-hand side of out is missing.
func Split(s string) []string {
	out :=
	for _, f := range strings.Fields(s) {
		out = append(out, f)
	}
	return out
}

<<<<<<< HEAD
// Join joins parts with commas.
func Join(parts []string) string {
	return strings.Join(parts, ",")
}
=======
// Join joins parts with semicolons.
func Join(parts []string) string {
	return strings.Join(parts, ";")
}
>>>>>>> feature/semicolons

type Config struct {
	Name  string
	Debug bool
}

func (c *Config) Validate() error {
	if c.Name == "" {
		return errMissingName
	}
	return nil
}

var errMissingName = errorString("name is required")

type errorString string

func (e errorString) Error() string { return string(e) }
