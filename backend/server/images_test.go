package server_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/png"
	"strings"
	"testing"

	"foya/backend/kernel"
	"foya/backend/server"
)

// TestAddImageBody: an image is uploaded in one AddImage call, so its body
// may be larger than other calls' (MaxBody): an image of 7.5 MB (10 MB as
// base64) is stored; a body past MaxImageBody is refused before it is read
// whole, naming the image limit. (The kernel's own refusal of an image a
// little over kernel.MaxImageBytes is tests/images_test.go's.)
func TestAddImageBody(t *testing.T) {
	f := start(t, server.Options{})
	sess := f.session("manual")
	var head bytes.Buffer
	png.Encode(&head, image.NewGray(image.Rect(0, 0, 2, 2)))
	// A PNG, then zero padding its decoder never reads (base64 "A" is
	// zero bits), built without encoding the padding.
	body := func(n int) string {
		lead := base64.StdEncoding.EncodeToString(append(head.Bytes(), make([]byte, 3-head.Len()%3)...))
		return `["` + sess.ID + `","shot.png","` + lead + strings.Repeat("A", (n-len(lead)/4*3)/3*4) + `"]`
	}

	// 7.5 MB of image is 10 MB of base64: more than other calls may send.
	resp := f.request("POST", "/api/call/AddImage", body(7_500_000), nil)
	var got kernel.PastedImage
	json.NewDecoder(resp.Body).Decode(&got)
	resp.Body.Close()
	if resp.StatusCode != 200 || got.Size != 7_500_000 || got.MIME != "image/png" || got.ID == "" {
		t.Fatalf("AddImage of 7.5 MB = %d %+v; want it stored", resp.StatusCode, got)
	}
	if msg := apiError(t, f.request("POST", "/api/call/AddImage", body(server.MaxImageBody), nil), 413, "invalid"); !strings.Contains(msg, "50 MB") {
		t.Errorf("AddImage past the body limit says %q; want the image limit named", msg)
	}
}
