package memory

import (
	"testing"
	"time"
)

func TestParseExpires(t *testing.T) {
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	tests := []struct {
		value string
		want  time.Time // zero: refused
	}{
		{"2025-01-31", day(2025, 2, 1)}, // the end of the day
		{"2024-12-31", day(2025, 1, 1)},
		{"2024-02-29", day(2024, 3, 1)},
		{"2025-01-31T18:00:00Z", time.Date(2025, 1, 31, 18, 0, 0, 0, time.UTC)},
		{"2025-01-31T18:00:00+02:00", time.Date(2025, 1, 31, 16, 0, 0, 0, time.UTC)},
		{"not-a-date", time.Time{}},
		{"2025-02-30", time.Time{}},
		{"2025-1-5", time.Time{}},
		{"20250131", time.Time{}},
		{"2025-01-31 10:00:00", time.Time{}},
		{"2025-01-31T10:00:00", time.Time{}},
		{"null", time.Time{}},
		{"", time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			got, err := ParseExpires(tt.value)
			if tt.want.IsZero() {
				if err == nil {
					t.Fatalf("ParseExpires(%q) = %v, want an error", tt.value, got)
				}
				if want := "must be " + ExpiresForms + "; got " + quote(tt.value); err.Error() != want {
					t.Errorf("error %q, want %q", err, want)
				}
				return
			}
			if err != nil || !got.Equal(tt.want) {
				t.Errorf("ParseExpires(%q) = %v, %v; want %v", tt.value, got, err, tt.want)
			}
		})
	}
}

func TestExpiredAtTheEndOfTheDay(t *testing.T) {
	at, err := ParseExpires("2025-06-01")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		now  time.Time
		want bool
	}{
		{"the day before", time.Date(2025, 5, 31, 23, 59, 59, 0, time.UTC), false},
		{"the day itself, at its start", time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC), false},
		{"the day itself, at its last second", time.Date(2025, 6, 1, 23, 59, 59, 0, time.UTC), false},
		{"the next day", time.Date(2025, 6, 2, 0, 0, 0, 0, time.UTC), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Expired(at, tt.now); got != tt.want {
				t.Errorf("Expired(%v, %v) = %v, want %v", at, tt.now, got, tt.want)
			}
		})
	}
}
