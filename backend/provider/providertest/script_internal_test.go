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
