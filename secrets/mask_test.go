package secrets

import "testing"

func TestValuesAndMaskerHideWhatWasFoundWhereverItAppears(t *testing.T) {
	content := []byte("first line\nkey AKIAABCDEFGHIJKLMNOP here\nnaïve ghp_0123456789abcdefghijklmnopqrstuvwxyz\n")
	found := []Finding{
		{Line: 2, Column: 5, Redacted: "AKIA****************"},
		{Line: 3, Column: 8, Redacted: "ghp_************************************"}, // after a two-byte ï
		{Line: 9, Column: 1, Redacted: "abcd****"},                                  // no such line
		{Line: 1, Column: 7, Redacted: "line******"},                                // runs past the line
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
