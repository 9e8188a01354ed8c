// Command datetime tells the time now in a time zone, or converts a wall
// clock time from one time zone to another. Zones are IANA names
// (Europe/Paris, America/New_York, UTC), looked up in the system's zoneinfo
// and, where the system has none, in the copy of the tz database compiled
// into this program (time/tzdata), so it works on a bare machine too.
//
// Arguments: {"action": "now", "to": "Asia/Tokyo"} or
// {"action": "convert", "time": "2026-11-25T10:00", "from": "Europe/Paris",
// "to": "Asia/Tokyo"}; "to" defaults to UTC. The result is JSON.
package main

import (
	"fmt"
	"strings"
	"time"
	_ "time/tzdata" // the fallback when the system has no zoneinfo

	"github.com/toolcall/toolcall/testdata/tools/src/internal/tool"
)

type args struct {
	Action string `json:"action"`
	Time   string `json:"time"`
	From   string `json:"from"`
	To     string `json:"to"`
}

// Moment is a time as shown in one zone.
type Moment struct {
	Time         string `json:"time"` // RFC 3339, with the zone's offset
	Zone         string `json:"zone"`
	Abbreviation string `json:"abbreviation"`
	UTCOffset    string `json:"utc_offset"`
	Weekday      string `json:"weekday"`
	DST          bool   `json:"dst"`
}

// Conversion is the result of the convert action.
type Conversion struct {
	From Moment `json:"from"`
	To   Moment `json:"to"`
	// Note explains a wall time that a clock change skips or repeats.
	Note string `json:"note,omitempty"`
}

// layouts accepted for "time": a wall clock time without an offset, since
// the offset is what "from" decides.
var layouts = []string{"2006-01-02T15:04", "2006-01-02T15:04:05", "2006-01-02 15:04", "2006-01-02 15:04:05"}

func main() {
	var a args
	if err := tool.ReadArgs(&a); err != nil {
		tool.Fail(2, "%v", err)
	}
	out, err := run(a, time.Now())
	if err != nil {
		tool.Fail(2, "%v", err)
	}
	tool.WriteJSON(out)
}

func run(a args, now time.Time) (any, error) {
	to, err := zone("to", a.To)
	if err != nil {
		return nil, err
	}
	switch a.Action {
	case "now":
		if a.Time != "" || a.From != "" {
			return nil, fmt.Errorf(`action "now" takes only "to"; to convert a given time use action "convert" with "time" and "from"`)
		}
		return moment(now.In(to)), nil
	case "convert":
		if a.Time == "" || a.From == "" {
			return nil, fmt.Errorf(`action "convert" needs "time" (such as 2026-11-25T10:00) and "from" (an IANA zone such as Europe/Paris)`)
		}
		from, err := zone("from", a.From)
		if err != nil {
			return nil, err
		}
		t, note, err := wallTime(a.Time, from)
		if err != nil {
			return nil, err
		}
		return Conversion{From: moment(t), To: moment(t.In(to)), Note: note}, nil
	case "":
		return nil, fmt.Errorf(`missing argument "action": "now" or "convert"`)
	}
	return nil, fmt.Errorf(`unknown action %q; use "now" or "convert"`, a.Action)
}

func zone(arg, name string) (*time.Location, error) {
	if name == "" {
		return time.UTC, nil
	}
	// "Local" would answer with wherever the tool happens to run, which
	// the caller cannot know; ask for a real zone instead.
	if strings.EqualFold(name, "local") {
		return nil, fmt.Errorf("%q: %q is not accepted; give an IANA zone such as Europe/Paris", arg, name)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("%q: unknown time zone %q; give an IANA name such as Europe/Paris, America/New_York or UTC", arg, name)
	}
	return loc, nil
}

// wallTime reads s as a wall clock time in loc. Around a clock change a
// wall time may not exist (clocks skip it) or exist twice (clocks repeat
// it); time.Date does not promise which it picks, so both are found here
// and the note says what was chosen.
func wallTime(s string, loc *time.Location) (time.Time, string, error) {
	var wall time.Time
	var err error
	for _, layout := range layouts {
		if wall, err = time.Parse(layout, s); err == nil {
			break
		}
	}
	if err != nil {
		return time.Time{}, "", fmt.Errorf(`"time" %q is not a wall clock time; write it as 2026-11-25T10:00 or 2026-11-25T10:00:30, without an offset (the zone is "from")`, s)
	}
	// Every candidate instant: the wall time read with each offset the zone
	// uses in the day around it. Zones do not change offset twice that fast.
	var found []time.Time
	for _, probe := range []time.Time{wall.Add(-24 * time.Hour), wall.Add(24 * time.Hour)} {
		_, off := probe.In(loc).Zone()
		t := wall.Add(-time.Duration(off) * time.Second).In(loc)
		if sameWall(t, wall) && (len(found) == 0 || !found[0].Equal(t)) {
			found = append(found, t)
		}
	}
	layout := "2006-01-02T15:04"
	switch len(found) {
	case 0:
		t := time.Date(wall.Year(), wall.Month(), wall.Day(), wall.Hour(), wall.Minute(), wall.Second(), 0, loc)
		return t, fmt.Sprintf("%s does not exist in %s: the clocks skip it; read as %s %s",
			wall.Format(layout), loc, t.Format(layout), abbrev(t)), nil
	case 2:
		if found[1].Before(found[0]) {
			found[0], found[1] = found[1], found[0]
		}
		return found[0], fmt.Sprintf("%s happens twice in %s: the clocks go back; this is the first, %s; the second is %s",
			wall.Format(layout), loc, abbrev(found[0]), abbrev(found[1])), nil
	}
	return found[0], "", nil
}

func sameWall(t, wall time.Time) bool {
	y, m, d := t.Date()
	return y == wall.Year() && m == wall.Month() && d == wall.Day() &&
		t.Hour() == wall.Hour() && t.Minute() == wall.Minute() && t.Second() == wall.Second()
}

func abbrev(t time.Time) string {
	name, _ := t.Zone()
	return name + " (UTC" + t.Format("-07:00") + ")"
}

func moment(t time.Time) Moment {
	name, _ := t.Zone()
	return Moment{
		Time:         t.Format(time.RFC3339),
		Zone:         t.Location().String(),
		Abbreviation: name,
		UTCOffset:    t.Format("-07:00"),
		Weekday:      t.Weekday().String(),
		DST:          t.IsDST(),
	}
}
