package tests

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/gzuidhof/tygo/tygo"
	"gopkg.in/yaml.v2"
)

// TestBindingsAreCurrent runs the TypeScript generator of tygo.yaml (the
// front end's types of events, kernel DTOs and enums) into a temp folder
// and fails when a committed file under frontend/src/backend/gen differs:
// the front end then hand-writes no copy of a Go type that could drift.
// It needs no GTK and no network: tygo reads the Go
// source.
// spec: W3
func TestBindingsAreCurrent(t *testing.T) {
	raw, err := os.ReadFile("../tygo.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var conf tygo.Config
	if err := yaml.UnmarshalStrict(raw, &conf); err != nil {
		t.Fatalf("tygo.yaml: %v", err)
	}
	if len(conf.Packages) == 0 {
		t.Fatal("tygo.yaml lists no package")
	}
	tmp := t.TempDir()
	committed := map[string]string{} // temp output → committed file, from the repository's root
	for _, p := range conf.Packages {
		out := filepath.Join(tmp, filepath.Base(p.OutputPath))
		committed[out] = p.OutputPath
		p.OutputPath = out
	}
	if err := tygo.New(&conf).Generate(); err != nil {
		t.Fatalf("tygo: %v", err)
	}
	// A Go constant tygo cannot translate (a conversion, another package's
	// constant without a mapping) comes out as the value `any`, which is
	// not TypeScript.
	untranslated := regexp.MustCompile(`(?m)^export const (\w+)(: \w+)? = any\b.*$`)
	for out, want := range committed {
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range untranslated.FindAllSubmatch(got, -1) {
			t.Errorf("%s: tygo cannot translate the Go constant %s (%s): write it as a literal, or map it in tygo.yaml", want, m[1], m[0])
		}
		old, err := os.ReadFile(filepath.Join("..", want))
		if err != nil {
			t.Errorf("%v: run make bindings", err)
			continue
		}
		if !bytes.Equal(got, old) {
			t.Errorf("%s is stale (the Go types it is generated from changed): run make bindings and commit the result", want)
		}
	}
}

// TestBindingsComeFromDTOFiles keeps the front end's contract to what Go
// declares for it: every package tygo.yaml generates from names its files,
// and each is a dto*.go file, but for the packages that are wholly wire
// vocabulary (wholeWire). A type a front end needs goes into a DTO file;
// internal types (a kernel's options, a manager's state) never reach the
// TypeScript.
// spec: W3
func TestBindingsComeFromDTOFiles(t *testing.T) {
	raw, err := os.ReadFile("../tygo.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var conf tygo.Config
	if err := yaml.UnmarshalStrict(raw, &conf); err != nil {
		t.Fatalf("tygo.yaml: %v", err)
	}
	dto := regexp.MustCompile(`^dto(_\w+)?\.go$`)
	// Packages every exported type of which is something front ends read.
	wholeWire := map[string]bool{
		"foya/backend/event":    true, // the envelope and every payload
		"foya/backend/settings": true, // the settings table: keys, kinds, entries
	}
	for _, p := range conf.Packages {
		if wholeWire[p.Path] {
			continue
		}
		if len(p.IncludeFiles) == 0 {
			t.Errorf("tygo.yaml: package %s generates from every file; list its dto*.go files in include_files", p.Path)
		}
		for _, f := range p.IncludeFiles {
			if !dto.MatchString(f) {
				t.Errorf("tygo.yaml: package %s generates from %s, not a dto*.go file: move what a front end sees into one", p.Path, f)
			}
		}
	}
}
