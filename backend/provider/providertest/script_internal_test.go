package providertest

import (
	"reflect"
	"testing"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"a", []string{"a"}},
		{"ab", []string{"a", "b"}},
		{"abcdef", []string{"ab", "cd", "ef"}},
		{"abcdefg", []string{"ab", "cd", "efg"}},
		{"✓✓✓✓", []string{"✓", "✓", "✓✓"}},
	}
	for _, tt := range tests {
		if got := split(tt.in, pieces); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("split(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

func TestChunks(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want []string
	}{
		{"", 4, nil},
		{"abcdefghij", 4, []string{"abcd", "efgh", "ij"}},
		{"abcd", 4, []string{"abcd"}},
		{"a✓b", 2, []string{"a", "✓", "b"}}, // ✓ is 3 bytes: the cut moves back
		{"✓✓", 1, []string{"✓", "✓"}},       // a piece gets at least one character
	}
	for _, tt := range tests {
		if got := chunks(tt.in, tt.n); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("chunks(%q, %d) = %q; want %q", tt.in, tt.n, got, tt.want)
		}
	}
}
