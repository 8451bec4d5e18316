package e2e

import (
	"bytes"
	"encoding/base64"
	"image/png"
	"path/filepath"
	"strings"
	"testing"

	pt "foya/backend/provider/providertest"
)

// TestBrowserComposerImages pastes and drops images into the composer in
// Chromium against foya serve and the scripted model: an image of over
// 50 MB and a text file named like an image are refused before upload
// with the limit and the kind named; a dropped image's chip is removed
// with the Delete key; a pasted image is sent with the message, reaches
// the model as an image_url part holding its bytes, and shows in the
// transcript, after a reload too.
//
// spec: I1, I3
func TestBrowserComposerImages(t *testing.T) {
	requireE2E(t)
	bin := buildFoya(t)
	model := pt.New(t, pt.Say("A red rectangle."))
	srv := startServe(t, bin)
	// gpt-4o is a model family known to take images.
	srv.call(t, nil, "AddProvider", map[string]any{"name": "scripted", "baseUrl": model.URL, "model": "gpt-4o"})
	srv.call(t, nil, "CreateSession", map[string]any{"workdir": t.TempDir(), "approvalMode": "auto", "title": "Images"})
	runScript(t, "images.mjs", map[string]string{
		"FOYA_URL":   srv.url,
		"FOYA_TITLE": "Images",
		"FOYA_SHOTS": filepath.Join(repoRoot(t), "tests", "e2e", "out"),
	})
	reqs := model.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests; want 1", len(reqs))
	}
	var images []string
	var text string
	for _, m := range reqs[0].Messages {
		if m.Role == "user" {
			images, text = m.Images, m.Content
		}
	}
	if text != "What is in this image?" || len(images) != 1 || !strings.HasPrefix(images[0], "data:image/png;base64,") {
		t.Fatalf("the user message = %q with %d images; want the prompt and one PNG data URL", text, len(images))
	}
	data, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(images[0], "data:image/png;base64,"))
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil || img.Bounds().Dx() != 64 || img.Bounds().Dy() != 48 {
		t.Fatalf("the image sent decodes as %v (%v); want the pasted 64×48 PNG", img.Bounds(), err)
	}
	srv.stop(t)
}
