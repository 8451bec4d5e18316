package settings

import (
	"strings"
	"testing"
)

// TestEverySettingIsDeclared fails when a setting is added to Table
// without what help, the list and the settings view show: a label and
// one line of doc, a kind with a parser, and a default its own parser
// takes as it is.
func TestEverySettingIsDeclared(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range Table {
		switch {
		case s.Key == "":
			t.Errorf("a setting has no key: %+v", s)
		case seen[s.Key]:
			t.Errorf("%s is declared twice", s.Key)
		case strings.TrimSpace(s.Doc) == "":
			t.Errorf("%s has no doc line: say in one line what it does and what it takes", s.Name())
		case strings.Contains(s.Doc, "\n") || !strings.HasSuffix(s.Doc, "."):
			t.Errorf("%s: doc %q is not one line ending in a period", s.Name(), s.Doc)
		case s.Label == "":
			t.Errorf("%s has no label for the settings view", s.Name())
		}
		seen[s.Key] = true
		if _, err := s.Kind.parse(s.Default); s.Default != "" && err != nil {
			t.Errorf("%s: default %q is refused by its own parser: %v", s.Name(), s.Default, err)
		} else if s.Default != "" {
			if v, _ := s.Kind.parse(s.Default); v != s.Default {
				t.Errorf("%s: default %q is stored as %q; write it in its normal form", s.Name(), s.Default, v)
			}
		}
		if _, err := s.Kind.parse(""); err != nil && strings.Contains(err.Error(), "no parser") {
			t.Errorf("%s: kind %q has no parser", s.Name(), s.Kind)
		}
		if s.Family != "" && !strings.HasSuffix(s.Key, ".") {
			t.Errorf("family %s: its prefix %q must end in a dot", s.Name(), s.Key)
		}
	}
}

func TestParse(t *testing.T) {
	for _, c := range []struct {
		key, value, want, err string
	}{
		{DefaultMode, "Full Access", "full_access", ""},
		{DefaultMode, "yolo", "", `approval.default: unknown approval mode "yolo": want manual, auto or full-access`},
		{MaxSteps, " 42 ", "42", ""},
		{MaxSteps, "0", "", "run.max_steps: 0: a turn needs at least 1 model step; give 1 to 100000"},
		{MaxWrite, "8MiB", "8388608", ""},
		{MaxWrite, "-1", "", `files.maxWriteBytes: want a positive number of bytes, such as 67108864 or 64MiB, got "-1"`},
		{IdleTimeout, "90s", "1m30s", ""},
		{IdleTimeout, "soon", "", `provider.idleTimeout: want a positive duration such as 30s or 5m, got "soon"`},
		{SandboxReadable, "/a:/b", "/a:/b", ""},
		{SandboxReadable, "rel", "", `sandbox.readable: "rel" is not an absolute path; give absolute paths separated by ":"`},
		{DiscoverPorts, "1234, 1234,80", "1234,80", ""},
		{DiscoverPorts, "http", "", `discover.ports: "http" is not a port: give port numbers (1 to 65535) separated by commas, such as 11434,1234`},
		{MCPDeferShare, "0.25", "0.25", ""},
		{MCPDeferShare, "2", "", `mcp.deferShare: want a share from 0 to 1 (0.1 is a tenth of the context), got "2"`},
		{CompactAt, " 0.75 ", "0.75", ""},
		{CompactAt, "1", "", `context.compactAt: want a share of the context window from 0.2 to 0.95 (0.8 compacts when a request would take 80% of it), got "1"`},
		{CompactAt, "0.1", "", `context.compactAt: want a share of the context window from 0.2 to 0.95`},
		{CompactAt, "NaN", "", `context.compactAt: want a share`},
		{CompactAt, "80%", "", `context.compactAt: want a share`},
		{EnvAllow, "AWS_*, GH_TOKEN", "AWS_*, GH_TOKEN", ""},
		{ImagesPrefix + "llava", "yes", "", `model.images.llava: want true or false, got "yes"`},
		{ImagesPrefix + "llava", "1", "true", ""},
		{ImagesPrefix, "true", "", `unknown setting "model.images."`},
		{"colour", "blue", "", `unknown setting "colour": known are approval.default, providers.default, run.max_steps`},
	} {
		_, got, err := Parse(c.key, c.value)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("Parse(%s, %q): %v; want %q", c.key, c.value, err, c.want)
		case c.err == "" && got != c.want:
			t.Errorf("Parse(%s, %q) = %q; want %q", c.key, c.value, got, c.want)
		case c.err != "" && (err == nil || !strings.HasPrefix(err.Error(), c.err)):
			t.Errorf("Parse(%s, %q) = %q, %v; want an error starting %q", c.key, c.value, got, err, c.err)
		}
	}
}

func TestListHasEverySetting(t *testing.T) {
	got := List(map[string]string{MaxSteps: "7", ImagesPrefix + "llava": "true", "rules.approved:/x": "{}"})
	if len(got) != len(Table) {
		t.Fatalf("List has %d entries; want %d", len(got), len(Table))
	}
	for _, e := range got {
		switch e.Key {
		case MaxSteps:
			if e.Value != "7" {
				t.Errorf("%s = %q; want 7", e.Key, e.Value)
			}
		case ImagesPrefix:
			if e.Set[ImagesPrefix+"llava"] != "true" || len(e.Set) != 1 {
				t.Errorf("%s set = %v; want llava only", e.Name(), e.Set)
			}
		}
	}
}
