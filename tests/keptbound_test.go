package tests

import (
	"context"
	"errors"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"foya/backend/doctor"
	"foya/backend/kernel"
	pt "foya/backend/provider/providertest"
)

// The contents the workspace index keeps are bounded
// (workspace.maxKeptBytes). A content past the bound is not kept, and the
// command's change that needed it is recorded, not restorable, with the
// reason; the bound and the disk use are in the settings, WorkspaceUsage
// (the Settings view) and foya doctor, which warns near the bound.
//
// spec: F1
func TestIssue21KeptContentsBounded(t *testing.T) {
	h := newHarness(t, nil, pt.Calls(call("c1", "bash", `{"command":"printf 'rewritten\\n' > noise.bin; printf 'two\\n' > small.txt"}`)), pt.Say("done"))
	noise := make([]byte, 4000)
	rand.NewChaCha8([32]byte{21}).Read(noise)
	writeFile(t, filepath.Join(h.dir, "noise.bin"), string(noise), 0o644)
	writeFile(t, filepath.Join(h.dir, "small.txt"), "one\n", 0o644)
	ctx := context.Background()
	if err := h.k.SetSetting(ctx, kernel.SettingWorkspaceMaxKept, "1KiB"); err != nil {
		t.Fatal(err)
	}
	if all, err := h.k.Settings(ctx); err != nil || all[kernel.SettingWorkspaceMaxKept] != "1024" {
		t.Fatalf("settings %v, %v; want workspace.maxKeptBytes 1024", all[kernel.SettingWorkspaceMaxKept], err)
	}
	sess := h.session("full_access")
	h.runIn(ctx, sess.ID, "rewrite")
	dir := realDir(t, h.dir)
	got := map[string]string{}
	for _, fc := range toolChanges(h, "c1") {
		rel, _ := filepath.Rel(dir, fc.Path)
		got[rel] = fc.NotRestorable
	}
	if len(got) != 2 || got["small.txt"] != "" || !strings.Contains(got["noise.bin"], "workspace.maxKeptBytes allows (1.0 KiB)") {
		t.Errorf("not restorable %q; want small.txt restorable and noise.bin not, past workspace.maxKeptBytes", got)
	}
	u := h.k.WorkspaceUsage()
	if u.MaxKeptBytes != 1024 || u.BlobBytes == 0 || u.BlobBytes > 1024 {
		t.Errorf("usage %+v; want the bound 1024 and the kept contents within it", u)
	}
	d := doctor.Run(ctx, doctor.Options{DBPath: h.db}).Workspace
	if d.Usage.MaxKeptBytes != 1024 || !strings.Contains(d.Detail, "of the 1.0 KiB workspace.maxKeptBytes allows") {
		t.Errorf("doctor's workspace finding %+v; want the kept contents and their bound", d)
	}
	if bad := h.k.SetSetting(ctx, kernel.SettingWorkspaceMaxKept, "lots"); !errors.Is(bad, kernel.ErrInvalid) {
		t.Errorf("set workspace.maxKeptBytes lots: %v; want invalid", bad)
	}
}
