package tests

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"foya/backend/event"
	"foya/backend/kernel"
	pt "foya/backend/provider/providertest"
)

// dotPNG is a w×h PNG with one red pixel.
func dotPNG(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	img.Set(0, 0, color.RGBA{255, 0, 0, 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// runStartImages are the images the first run.start event names.
func runStartImages(t *testing.T, h *harness) []event.ImageRef {
	t.Helper()
	for _, ev := range h.eventList() {
		if ev.Type == event.TypeRunStart {
			var d event.RunStartData
			if err := json.Unmarshal(ev.Data, &d); err != nil {
				t.Fatal(err)
			}
			return d.Images
		}
	}
	t.Fatal("no run.start event")
	return nil
}

// TestPastedImageGoesToTheModel: an image the user pasted is stored as an
// artifact (with a small copy for the transcript) before the message is
// sent; the message carries it as an image part, which reaches a model
// that takes images as an image_url data URL of the same bytes; run.start
// names it, and the stored history still refers to it.
//
// spec: I1, I2, I3
func TestPastedImageGoesToTheModel(t *testing.T) {
	h := newHarness(t, nil, pt.Say("a red dot"))
	ctx := context.Background()
	s := h.session("auto") // model "m" takes images
	data := dotPNG(t, 800, 400)
	p, err := h.k.AddImage(ctx, s.ID, "screenshot.png", data)
	if err != nil {
		t.Fatal(err)
	}
	if p.MIME != "image/png" || p.Width != 800 || p.Height != 400 || p.Size != int64(len(data)) || p.Name != "screenshot.png" {
		t.Fatalf("AddImage = %+v; want screenshot.png, image/png 800×400 of %d bytes", p, len(data))
	}
	thumb, err := h.k.Artifact(ctx, s.ID, p.ThumbID)
	if err != nil || thumb.Width != kernel.ThumbSide || thumb.Height != kernel.ThumbSide/2 {
		t.Fatalf("thumbnail %dx%d, %v; want %dx%d", thumb.Width, thumb.Height, err, kernel.ThumbSide, kernel.ThumbSide/2)
	}

	r, err := h.k.Run(ctx, kernel.RunOptions{SessionID: s.ID, Prompt: "what is this?", Model: h.model(),
		Images: []kernel.PastedImage{{ID: p.ID, ThumbID: p.ThumbID, Name: p.Name, MIME: "text/plain", Size: 1}}})
	if err != nil || r.Status != kernel.RunCompleted {
		t.Fatalf("run %s %s, %v", r.Status, r.Error, err)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests; want 1", len(reqs))
	}
	var user pt.Message
	for _, m := range reqs[0].Messages {
		if m.Role == "user" {
			user = m
		}
	}
	want := "data:image/png;base64," + base64.StdEncoding.EncodeToString(data)
	if len(user.Images) != 1 || user.Images[0] != want || user.Content != "what is this?" {
		t.Fatalf("user message: %q with %d images; want the prompt and the pasted PNG as an image_url data URL", user.Content, len(user.Images))
	}

	// run.start names the image with what the store holds, not what the
	// client claimed (MIME text/plain, 1 byte above), and carries no bytes.
	refs := runStartImages(t, h)
	wantRef := event.ImageRef{ArtifactID: p.ID, ThumbID: p.ThumbID, Name: "screenshot.png", MIME: "image/png", Size: int64(len(data)), Width: 800, Height: 400}
	if len(refs) != 1 || refs[0] != wantRef {
		t.Fatalf("run.start images = %+v; want [%+v]", refs, wantRef)
	}
	msgs, err := h.k.Messages(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) == 0 || msgs[0].Message.Role != kernel.RoleUser || len(msgs[0].Message.Parts) != 1 || msgs[0].Message.Parts[0].ArtifactID != p.ID {
		t.Fatalf("stored history %+v; want the user message with its image part", msgs)
	}
}

// TestPastedImageRefused: the kernel checks what the window sends, whatever
// the window checked: an image over 50 MB is refused with its size and the
// limit, a file that is not an image (by its content, whatever its name)
// with what it is, a message with more than MaxImagesPerMessage images or
// another session's image is refused; nothing starts and nothing is sent.
//
// spec: I1
func TestPastedImageRefused(t *testing.T) {
	h := newHarness(t, nil, pt.Say("never"))
	ctx := context.Background()
	s := h.session("auto")
	big := make([]byte, 52_300_000)
	copy(big, dotPNG(t, 2, 2))
	for _, tc := range []struct {
		name string
		data []byte
		want []string
	}{
		{"screenshot.png", big, []string{"screenshot.png is 52.3 MB", "images are limited to 50 MB"}},
		{"edge.png", big[:kernel.MaxImageBytes+1], []string{"edge.png is 50000001 bytes", "limited to 50 MB"}},
		{"notes.png", []byte("these are my notes, not a picture\n"), []string{"notes.png is not an image", "text", "PNG, JPEG, GIF or WebP"}},
		{"empty.png", nil, []string{"empty.png is empty"}},
	} {
		_, err := h.k.AddImage(ctx, s.ID, tc.name, tc.data)
		if kernel.Code(err) != kernel.CodeInvalid {
			t.Errorf("AddImage(%s) = %v; want invalid", tc.name, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("AddImage(%s) = %q; want it to say %q", tc.name, err, w)
			}
		}
	}
	// Exactly at the limit passes the size check (and is then refused
	// for its content, so that nothing of 50 MB is stored here).
	if _, err := h.k.AddImage(ctx, s.ID, "limit.png", make([]byte, kernel.MaxImageBytes)); err == nil || !strings.Contains(err.Error(), "limit.png is not an image") {
		t.Errorf("AddImage of exactly %d zero bytes = %v; want no size refusal but a refusal of its content", kernel.MaxImageBytes, err)
	}

	p, err := h.k.AddImage(ctx, s.ID, "dot.png", dotPNG(t, 2, 2))
	if err != nil {
		t.Fatal(err)
	}
	tooMany := make([]kernel.PastedImage, kernel.MaxImagesPerMessage+1)
	for i := range tooMany {
		tooMany[i] = p
	}
	other := h.session("auto")
	for _, tc := range []struct {
		label   string
		session string
		images  []kernel.PastedImage
		want    string
	}{
		{"too many", s.ID, tooMany, "at most 10"},
		{"another session's", other.ID, []kernel.PastedImage{p}, "not stored in this session"},
		{"unknown", s.ID, []kernel.PastedImage{{ID: "art_nope", ThumbID: p.ThumbID, Name: "x.png"}}, "not stored in this session"},
	} {
		_, err := h.k.Run(ctx, kernel.RunOptions{SessionID: tc.session, Prompt: "look", Model: h.model(), Images: tc.images})
		if kernel.Code(err) != kernel.CodeInvalid || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Run with %s images = %v; want invalid saying %q", tc.label, err, tc.want)
		}
	}
	if n := len(h.srv.Requests()); n != 0 {
		t.Fatalf("%d model requests; want none", n)
	}
}

// TestPastedImageForTextOnlyModel: a model that takes no images gets no
// image part, only a note that the image was left out; the image stays in
// the history and run.start names it, so the transcript still shows it.
//
// spec: I4
func TestPastedImageForTextOnlyModel(t *testing.T) {
	h := newHarness(t, nil, pt.Say("I cannot see images"))
	ctx := context.Background()
	s, err := h.k.CreateSession(ctx, kernel.NewSession{Workdir: h.dir, ApprovalMode: "auto", Model: "text-only-model"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := h.k.AddImage(ctx, s.ID, "chart.png", dotPNG(t, 10, 10))
	if err != nil {
		t.Fatal(err)
	}
	r, err := h.k.Run(ctx, kernel.RunOptions{SessionID: s.ID, Prompt: "read the chart", Model: h.model(), Images: []kernel.PastedImage{p}})
	if err != nil || r.Status != kernel.RunCompleted {
		t.Fatalf("run %s %s, %v", r.Status, r.Error, err)
	}
	req := h.srv.Requests()[0]
	for _, m := range req.Messages {
		if len(m.Images) != 0 {
			t.Fatalf("a text-only model got %d image parts in a %s message", len(m.Images), m.Role)
		}
		if m.Role == "user" && !strings.Contains(m.Content, "left out: this model takes no image input") {
			t.Fatalf("user message %q; want a note that the image was left out", m.Content)
		}
	}
	if strings.Contains(string(req.Raw), "image_url") {
		t.Fatal("the request holds an image_url part")
	}
	if refs := runStartImages(t, h); len(refs) != 1 || refs[0].ArtifactID != p.ID {
		t.Fatalf("run.start images = %+v; want the image", refs)
	}
}
