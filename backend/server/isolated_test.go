package server_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"foya/backend/kernel"
	"foya/backend/server"
)

// Issue 29: an isolated session over HTTP, as the browser's UI makes one:
// CreateSession with an isolation, SessionCopies, ApplySession with a
// conflict, DiscardSession and its refusal the second time.
func TestIsolatedSessionOverHTTP(t *testing.T) {
	f := start(t, server.Options{})
	if err := os.WriteFile(filepath.Join(f.dir, "a.txt"), []byte("base\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var sess kernel.Session
	f.call(&sess, "CreateSession", kernel.NewSession{Workdir: f.dir, ApprovalMode: "auto", Isolation: "copy"})
	if sess.Isolation == nil || sess.Isolation.Kind != "copy" || sess.ProjectID != f.dir || sess.Workdir == f.dir {
		t.Fatalf("session %+v: want a copy of %s", sess, f.dir)
	}
	var copies []kernel.SessionCopy
	f.call(&copies, "SessionCopies")
	if len(copies) != 1 || copies[0].SessionID != sess.ID || copies[0].Bytes <= 0 {
		t.Fatalf("SessionCopies = %+v", copies)
	}
	// The session and the folder both change a.txt.
	for dir, text := range map[string]string{sess.Workdir: "session\n", f.dir: "folder\n"} {
		if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var res kernel.ApplyResult
	f.call(&res, "ApplySession", kernel.ApplyOptions{SessionID: sess.ID})
	if len(res.Conflicts) != 1 || res.Conflicts[0].Path != "a.txt" || !strings.Contains(res.Conflicts[0].SessionDiff, "+session") {
		t.Fatalf("ApplySession = %+v", res)
	}
	if b, _ := os.ReadFile(filepath.Join(f.dir, "a.txt")); string(b) != "folder\n" {
		t.Fatalf("a.txt = %q: overwritten", b)
	}
	f.call(nil, "DiscardSession", sess.ID)
	msg := apiError(t, f.request("POST", "/api/call/DiscardSession", `["`+sess.ID+`"]`, nil), 409, "conflict")
	if !strings.Contains(msg, "discarded already") {
		t.Fatalf("discard twice: %q", msg)
	}
	plain := f.session("auto")
	apiError(t, f.request("POST", "/api/call/ApplySession", `[{"sessionId":"`+plain.ID+`"}]`, nil), 400, "invalid")
	apiError(t, f.request("POST", "/api/call/ApplySession", `[{}]`, nil), 400, "invalid")
	apiError(t, f.request("POST", "/api/call/CreateSession", `[{"workdir":"`+f.dir+`","isolation":"vm"}]`, nil), 400, "invalid")
}
