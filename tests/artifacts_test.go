package tests

import (
	"bytes"
	"context"
	"encoding/base64"
	"image/png"
	"strings"
	"testing"

	"foya/backend/api"
	"foya/backend/event"
	"foya/backend/kernel"
	"foya/backend/llm"
	pt "foya/backend/provider/providertest"
	"foya/backend/store"
	"foya/backend/tools"
)

// TestArtifactThroughTheAPI: the desktop reads an image a tool made
// through the API's Artifact call (it has no artifacts route): its MIME
// type, size and bytes base64; another session's ID, an unknown or empty
// ID do not reach it, and an artifact over MaxArtifactBytes is refused in
// words.
//
// spec: I1, I2
func TestArtifactThroughTheAPI(t *testing.T) {
	h := newHarness(t, []tools.Tool{imager{}}, pt.Calls(call("1", "screenshot", `{}`)), pt.Say("a red dot"))
	run := h.run("look")
	if run.Status != kernel.RunCompleted {
		t.Fatalf("run %s: %s", run.Status, run.Error)
	}
	var artID string
	for _, ev := range h.eventList() {
		if ev.Type == event.TypeToolEnd {
			if arts, _ := field(ev, "artifacts").([]any); len(arts) == 1 {
				artID, _ = arts[0].(string)
			}
		}
	}
	if artID == "" {
		t.Fatal("no artifact ID in the call's end event")
	}
	svc := panelService(h)
	a, err := svc.Artifact(run.SessionID, artID)
	if err != nil {
		t.Fatal(err)
	}
	data, err := base64.StdEncoding.DecodeString(a.Data)
	if err != nil {
		t.Fatalf("data is not base64: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil || a.ID != artID || a.MIME != "image/png" || a.Size != int64(len(data)) || a.Width != 4 || a.Height != 3 {
		t.Fatalf("Artifact = %s %s %d bytes %dx%d (decodes: %v); want %s image/png 4x3", a.ID, a.MIME, a.Size, a.Width, a.Height, err, artID)
	}
	if b := img.Bounds(); b.Dx() != 4 || b.Dy() != 3 {
		t.Fatalf("decoded image is %v; want 4x3", b)
	}

	other := h.session("manual")
	for _, tc := range []struct{ session, id, code string }{
		{other.ID, artID, kernel.CodeNotFound},
		{run.SessionID, "art_nope", kernel.CodeNotFound},
		{"ses_nope", artID, kernel.CodeNotFound},
		{run.SessionID, "", kernel.CodeInvalid},
		{"  ", artID, kernel.CodeInvalid},
	} {
		if _, err := svc.Artifact(tc.session, tc.id); apiCode(err) != tc.code {
			t.Errorf("Artifact(%q, %q) = %v; want code %s", tc.session, tc.id, err, tc.code)
		}
	}

	st, err := store.Open(context.Background(), h.db)
	if err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte{0xff}, api.MaxArtifactBytes+1)
	_, err = st.Apply(context.Background(), llm.Commit{Artifacts: []llm.Artifact{
		{ID: "art_big", SessionID: run.SessionID, MIME: "image/png", Data: big},
		{ID: "art_edge", SessionID: run.SessionID, MIME: "application/pdf", Data: big[:api.MaxArtifactBytes]},
	}})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	_, err = svc.Artifact(run.SessionID, "art_big")
	if apiCode(err) != kernel.CodeInvalid || !strings.Contains(err.Error(), "20.0 MiB") || !strings.Contains(err.Error(), "foya serve") {
		t.Errorf("Artifact of %d bytes = %v; want invalid, naming the limit and what to do", len(big), err)
	}
	edge, err := svc.Artifact(run.SessionID, "art_edge")
	if err != nil || edge.Size != api.MaxArtifactBytes || edge.MIME != "application/pdf" {
		t.Errorf("Artifact of exactly the limit = %s %d bytes, %v; want it, with its type (the front end decides what it shows)", edge.MIME, edge.Size, err)
	}
}
