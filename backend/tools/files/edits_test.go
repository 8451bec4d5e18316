package files

import (
	"slices"
	"testing"
)

// Edits finds the changed runs of a diff without its context, with the
// line numbers of both sides, for a replacement, an insertion, a removal
// and a whole new file.
func TestEdits(t *testing.T) {
	lines := func(n int, f func(i int) string) string {
		s := ""
		for i := 1; i <= n; i++ {
			s += f(i)
		}
		return s
	}
	before := lines(20, func(i int) string { return "row " + itoa(i) + "\n" })
	after := lines(20, func(i int) string {
		switch i {
		case 2:
			return "ROW 2\n"
		case 10:
			return "" // removed
		case 15:
			return "row 15\nnew a\nnew b\n" // two inserted after 15
		}
		return "row " + itoa(i) + "\n"
	})
	for _, tc := range []struct {
		name           string
		before, after  string
		existed, there bool
		want           []Edit
	}{
		{"edits", before, after, true, true, []Edit{
			{OldStart: 2, OldCount: 1, NewStart: 2, NewCount: 1},
			{OldStart: 10, OldCount: 1, NewStart: 10, NewCount: 0},
			{OldStart: 16, OldCount: 0, NewStart: 15, NewCount: 2},
		}},
		{"new file", "", "a\nb\n", false, true, []Edit{{OldStart: 1, OldCount: 0, NewStart: 1, NewCount: 2}}},
		{"emptied", "a\nb\n", "", true, true, []Edit{{OldStart: 1, OldCount: 2, NewStart: 1, NewCount: 0}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Unified("a/f", "b/f", []byte(tc.before), []byte(tc.after), tc.existed, tc.there)
			got, err := Edits(d.Text)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("Edits =\n%+v\nwant\n%+v\ndiff:\n%s", got, tc.want, d.Text)
			}
		})
	}
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}
