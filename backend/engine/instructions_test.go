//go:build unix

package engine

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"unicode/utf8"

	"foya/backend/llm"
)

// Issue 10 item 6, bad input: a 50 MB AGENTS.md costs the bound, not the
// file: loading it allocates a small multiple of 32 KiB.
func TestLoadInstructionsReadsOnlyTheBound(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "AGENTS.md"))
	if err != nil {
		t.Fatal(err)
	}
	line := bytes.Repeat([]byte("x"), 1023)
	line = append(line, '\n')
	for range 50 << 10 { // 50 MB
		f.Write(line)
	}
	f.Close()

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	text, info := loadInstructions(dir)
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Errorf("loading a 50 MB AGENTS.md allocated %d bytes; want about the 32 KiB bound", alloc)
	}
	if !info.Truncated || info.Size != 50<<20 || info.Bytes != 32<<10 {
		t.Errorf("info = %+v; want truncated, 32 KiB of 50 MiB (the bound falls on a line end here)", info)
	}
	if !strings.HasSuffix(text, "Read the file for the rest.]") {
		t.Errorf("no truncation notice at the end: %q", text[len(text)-200:])
	}
}

// A cut at the bound ends on a whole line when there is one in the second
// half, else on a whole character: the prompt never holds half a rune, and
// valid text is not reported as invalid.
func TestLoadInstructionsCutsOnABoundary(t *testing.T) {
	for name, content := range map[string]string{
		"no newline": "x" + strings.Repeat("é", InstructionsLimit), // 2 bytes each: the bound falls inside one
		"odd runes":  "x" + strings.Repeat("€", InstructionsLimit/3+10),
		"lines":      strings.Repeat("line ✓\n", InstructionsLimit/8+10),
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			text, info := loadInstructions(dir)
			body, _, _ := strings.Cut(text, "\n\n[AGENTS.md is")
			if !info.Truncated || info.InvalidUTF8 || !utf8.ValidString(text) || info.Bytes > InstructionsLimit ||
				!strings.HasPrefix(content, strings.TrimRight(body, "\n")) {
				t.Errorf("info %+v, valid %v; want a clean cut of valid text", info, utf8.ValidString(text))
			}
			if name == "lines" && !strings.HasSuffix(body, "line ✓") {
				t.Errorf("the cut is not at a line end: %q", body[len(body)-20:])
			}
		})
	}
}

// The status and reason when AGENTS.md is there but unusable: CLAUDE.md is
// not read instead, and the reason says so.
func TestLoadInstructionsNoFallbackPastAnUnusableAgentsFile(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "AGENTS.md"), 0o755)
	os.WriteFile(filepath.Join(dir, "CLAUDE.md"), []byte("rules\n"), 0o644)
	text, info := loadInstructions(dir)
	if text != "" || info.Status != llm.InstructionsSkipped || !strings.Contains(info.Skipped, "CLAUDE.md is read only when there is no AGENTS.md") {
		t.Errorf("text %q, info %+v", text, info)
	}
}

// Issue 10 item 6, bad input: AGENTS.md swapped, while it is being loaded,
// between a plain file, a symlink to a secret outside the working directory
// and a FIFO. No load ever holds the secret (the check and the open are one
// resolution beneath the root) and none waits for a FIFO's writer.
func TestLoadInstructionsSwapNeverLeaksNorHangs(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(t.TempDir(), "id_rsa")
	os.WriteFile(secret, []byte("SECRET-KEY-MATERIAL\n"), 0o600)
	agents := filepath.Join(dir, "AGENTS.md")
	os.WriteFile(agents, []byte("plain rules\n"), 0o644)

	stop := make(chan struct{})
	swapped := make(chan struct{})
	go func() {
		defer close(swapped)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			tmp := filepath.Join(dir, "next.tmp")
			os.Remove(tmp)
			switch i % 3 {
			case 0:
				os.WriteFile(tmp, []byte("plain rules\n"), 0o644)
			case 1:
				os.Symlink(secret, tmp)
			case 2:
				if err := syscall.Mkfifo(tmp, 0o644); err != nil {
					continue
				}
			}
			os.Rename(tmp, agents)
		}
	}()
	defer func() { close(stop); <-swapped }() // before the temp folders go
	seen := map[string]int{}
	for range 2000 {
		text, info := loadInstructions(dir)
		if strings.Contains(text, "SECRET") {
			t.Fatalf("a load read the secret through a swapped symlink: %+v", info)
		}
		seen[info.Status]++
	}
	t.Logf("loads by status: %v", seen)
}
