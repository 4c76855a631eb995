package memory

import (
	"fmt"
	"time"
)

// ExpiresForms says what an expires: value may be, for messages.
const ExpiresForms = "a date like 2025-01-31 or an RFC 3339 time like 2025-01-31T18:00:00Z"

// ParseExpires reads the value of a memory's expires: key, a date
// (2025-01-31) or an RFC 3339 time (2025-01-31T18:00:00Z), and returns the
// first instant at which the memory counts as expired. A date lasts until
// the end of that day in UTC, the zone of created and updated: the
// documents promise removal once the date has passed, so a memory that
// expires today is still current today. A time expires at that instant.
//
// Nothing looser is accepted (2025-1-5, 20250131, "2025-01-31 10:00:00",
// 2025-02-30): a value a reader could take for another day must not
// silently mean one of them.
func ParseExpires(s string) (time.Time, error) {
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t.AddDate(0, 0, 1), nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("must be %s; got %s", ExpiresForms, quote(s))
}

// Expired reports whether a memory whose expires: value is at (as
// ParseExpires returns it) has expired at time now.
func Expired(at, now time.Time) bool { return !now.Before(at) }
