package server_test

import (
	"context"
	"io"
	"testing"

	"foya/backend/llm"
	"foya/backend/server"
	"foya/backend/store"
)

// TestArtifactServed: an artifact's bytes come with its Content-Type, an
// inline Content-Disposition and a sandboxing CSP; another session's ID
// does not reach it.
//
// spec: I2
func TestArtifactServed(t *testing.T) {
	f := start(t, server.Options{})
	sess, other := f.session("manual"), f.session("manual")
	st, err := store.Open(context.Background(), f.k.Info().DBPath)
	if err != nil {
		t.Fatal(err)
	}
	svg := []byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`)
	_, err = st.Apply(context.Background(), llm.Commit{Artifacts: []llm.Artifact{
		{ID: "art_png", SessionID: sess.ID, MIME: "image/png", Data: []byte("\x89PNG\r\n\x1a\nfake")},
		{ID: "art_svg", SessionID: sess.ID, MIME: "image/svg+xml", Data: svg},
	}})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]struct{ ct, disp string }{
		"art_png": {"image/png", `inline; filename=art_png.png`},
		"art_svg": {"image/svg+xml", `inline; filename=art_svg.svg`},
	} {
		resp := f.request("GET", "/api/sessions/"+sess.ID+"/artifacts/"+id, "", nil)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		h := resp.Header
		if resp.StatusCode != 200 || h.Get("Content-Type") != want.ct || h.Get("Content-Disposition") != want.disp || len(body) == 0 {
			t.Errorf("artifact %s = %d %q %q (%d bytes); want 200 %q %q", id, resp.StatusCode, h.Get("Content-Type"), h.Get("Content-Disposition"), len(body), want.ct, want.disp)
		}
		if csp := h.Get("Content-Security-Policy"); csp == "" || csp[:7] != "sandbox" {
			t.Errorf("artifact %s: CSP %q; want a sandbox", id, csp)
		}
	}
	apiError(t, f.request("GET", "/api/sessions/"+other.ID+"/artifacts/art_png", "", nil), 404, "not_found")
}
