package engine

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"foya/backend/llm"
	"foya/backend/testwait"
)

// Issue 10 item 6, bad input: an AGENTS.md nobody may read is skipped with
// the reason. The tests run as root, whom file modes do not stop, so the
// load runs on a thread of its own that has given up the capabilities that
// bypass them (capabilities are per thread on Linux; the thread ends with
// its goroutine).
func TestLoadInstructionsUnreadable(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("secret rules\n"), 0o000); err != nil {
		t.Fatal(err)
	}
	type out struct {
		text string
		info llm.Instructions
		err  error
	}
	done := make(chan out)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread dies with this goroutine
		hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
		var data [2]unix.CapUserData
		if err := unix.Capget(&hdr, &data[0]); err != nil {
			done <- out{err: err}
			return
		}
		data[0].Effective &^= 1<<unix.CAP_DAC_OVERRIDE | 1<<unix.CAP_DAC_READ_SEARCH
		if err := unix.Capset(&hdr, &data[0]); err != nil {
			done <- out{err: err}
			return
		}
		text, info := loadInstructions(dir)
		done <- out{text: text, info: info}
	}()
	o := testwait.Receive(t, done, "the instructions read without capabilities")
	if o.err != nil {
		t.Fatalf("drop capabilities: %v", o.err)
	}
	if os.Geteuid() != 0 {
		t.Log("not root: the file mode alone stops the read")
	}
	if o.text != "" || o.info.Status != llm.InstructionsSkipped || !strings.Contains(o.info.Skipped, "permission denied") {
		t.Errorf("text %q, info %+v; want skipped for permission denied", o.text, o.info)
	}
}
