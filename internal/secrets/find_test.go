package secrets

import (
	"strings"
	"testing"
)

// TestEveryRuleFinderRuns runs each rule's finder once. Regular expressions
// are compiled on first use, so a bad one would otherwise panic in the
// first scan that reaches it rather than here.
func TestEveryRuleFinderRuns(t *testing.T) {
	for _, r := range rules() {
		t.Run(r.id, func(t *testing.T) {
			if spans := r.find([]byte("nothing secret here")); len(spans) != 0 {
				t.Errorf("find reported %v in a harmless line", spans)
			}
		})
	}
}

// TestScanDoesLinearWork scans inputs built to defeat the anchor filter,
// every line full of anchors and near misses, at two sizes, and compares
// the work scan reports (bytes passed over, handed to finders and to
// checks) rather than the time it takes, which a busy machine stretches.
// A scanner that went back over the text for each anchor or candidate
// would do 16 times the work for 4 times the text; a linear one does 4
// times, and up to half as much again where the windows given to checks
// (up to 72 KiB) are cut at the start and end of the smaller text.
func TestScanDoesLinearWork(t *testing.T) {
	if testing.Short() {
		t.Skip("scans 640 KiB per input")
	}
	const small, large = 128 << 10, 512 << 10
	fill := func(unit string, size int) []byte {
		return []byte(strings.Repeat(unit, size/len(unit)))
	}
	units := []string{
		"-----BEGIN " + "PRIVATE" + " KEY-----",
		"api_key:\"",
		"token=x ",
		"a://b:c",
		"x://u:p@h ",
		"ghp_AKIAeyJ.sk-",
		"xoxb-1-",
		"-",
		"the token is " + strings.Repeat("a1", 10) + " ",
		"Datadog " + strings.Repeat("0f", 16) + " ",
		strings.Repeat("Ab1", 11) + " ",
		"dckr_pat_glpat-pscale_tkn_xkeysib-sntrys_",
	}
	for _, unit := range units {
		for _, sep := range []string{"", "\n"} {
			t.Run(strings.TrimSpace(unit+sep), func(t *testing.T) {
				var ws, wl int
				scanCounting(fill(unit+sep, small), &ws)
				scanCounting(fill(unit+sep, large), &wl)
				ratio := float64(wl) / float64(ws)
				t.Logf("work %d for %d bytes, %d for %d: ratio %.2f", ws, small, wl, large, ratio)
				if ratio > 6 {
					t.Errorf("4 times the text took %.1f times the work, want at most 6", ratio)
				}
			})
		}
	}
}
