package secrets

import (
	"strings"
	"testing"
)

func TestValuesAndMaskerHideWhatWasFoundWhereverItAppears(t *testing.T) {
	content := []byte("first line\nkey AKIAABCDEFGHIJKLMNOP here\nnaïve ghp_0123456789abcdefghijklmnopqrstuvwxyz\n")
	found := []Finding{
		{Line: 2, Column: 5, Redacted: "AKIA****************"},
		{Line: 3, Column: 8, Redacted: "ghp_************************************"}, // after a two-byte ï
		{Line: 9, Column: 1, Redacted: "abcd****"},                                 // no such line
		{Line: 1, Column: 7, Redacted: "line******"},                               // runs past the line
	}
	values := Values(nil, content, found)
	if len(values) != 2 || values["AKIAABCDEFGHIJKLMNOP"] != "AKIA****************" ||
		values["ghp_0123456789abcdefghijklmnopqrstuvwxyz"] != "ghp_************************************" {
		t.Fatalf("Values = %q", values)
	}
	// A secret that holds another is masked whole, whatever the map order.
	values["AKIAABCD"] = "AKIA****"
	got := Masker(values).Replace("title AKIAABCDEFGHIJKLMNOP, AKIAABCD; ghp_0123456789abcdefghijklmnopqrstuvwxyz")
	want := "title AKIA****************, AKIA****; ghp_************************************"
	if got != want {
		t.Fatalf("Masker:\n got %q\nwant %q", got, want)
	}
}

// A private key's finding names its BEGIN line; the key is the lines
// after it, which must be hidden too, also where they were joined.
func TestValuesHideAPrivateKeysMaterial(t *testing.T) {
	begin := "-----BEGIN RSA " + "PRIVATE KEY-----" // built here so no scanner flags this file
	lines := []string{
		"MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun",
		"VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK",
		"LxoS2tFczGkPLPgizskuemMghRniWaoLcyehkd3qqGElvW/VDL5AaWTg0nLVkjRo",
		"9z+40RQzuVaE8AkAFmxZzow3x+VJYKdjykkJ0iT9wCS0DRTXu269V264Vf/3jvre",
		"dQ==",
	}
	content := "Staging deploy key:\n" + begin + "\n" + strings.Join(lines, "\n") + "\n-----END RSA " + "PRIVATE KEY-----\n"
	sc := &Scanner{}
	found := sc.Scan("", []byte(content))
	if len(found) != 1 || found[0].Rule != "private-key" {
		t.Fatalf("Scan = %+v; want one private-key finding", found)
	}
	m := Masker(Values(nil, []byte(content), found))
	joined := strings.Join(strings.Fields(content), " ") // as a one-line summary shows it
	for _, shown := range []string{m.Replace(content), m.Replace(joined)} {
		for _, l := range lines[:4] {
			if strings.Contains(shown, l) || strings.Contains(shown, l[8:40]) {
				t.Fatalf("key material shown in clear:\n%s", shown)
			}
		}
		if !strings.Contains(shown, "Staging deploy key:") || !strings.Contains(shown, "-----END RSA") {
			t.Fatalf("more than the key was masked:\n%s", shown)
		}
	}
}

func TestMayHoldSecret(t *testing.T) {
	tests := []struct {
		s    string
		want bool
	}{
		{"deploy-notes-for-2026-q3", false},
		{"the-cache-uses-lru-eviction-with-4096-entries", false},
		{"internationalization-guidelines", false},
		{"ticket-1234567890123456", false},
		{"staging-login-uses-7fk2p9qx3m4n8b1vz5c6", true},
		{"revert-3f2a1b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0a", true},
		{"rotate-q7wert9yuiop3asdfghjkl2z", true},
	}
	for _, tt := range tests {
		if got := MayHoldSecret(tt.s); got != tt.want {
			t.Errorf("MayHoldSecret(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
}
