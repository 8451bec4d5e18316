package smoke

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"foya/backend/provider/providertest"
)

// TestDesktopWindowShowsAnImageArtifact: a stored run whose read of a PNG
// made an artifact is opened in the real desktop window, which has no
// artifacts route: its card reads the image through the bound API's
// Artifact call and shows it decoded (the report counts images=1, which a
// card that only names the artifact, or an image that does not decode,
// does not give).
//
// spec: I1, W3
func TestDesktopWindowShowsAnImageArtifact(t *testing.T) {
	requireSmoke(t)
	bin, version := buildDesktop(t)

	dir := t.TempDir()
	db := filepath.Join(dir, "data", "foya.db")
	project := filepath.Join(dir, "project")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	img := image.NewRGBA(image.Rect(0, 0, 160, 90))
	for y := range 90 {
		for x := range 160 {
			img.Set(x, y, color.RGBA{uint8(x * 255 / 159), 90, uint8(y * 255 / 89), 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, "chart.png"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := providertest.New(t,
		providertest.Calls(providertest.Call{Name: "read", Arguments: `{"path":"chart.png"}`}),
		providertest.Say("The chart goes from blue to red."),
	)
	sessionID, out := seedRun(t, bin, dir, db, "--base-url", srv.URL, "--api-key", "smoke", "--model", "smoke-model",
		"--workdir", project, "--approval", "auto", "Look at chart.png")
	if !strings.Contains(string(out), `"artifacts":["art_`) {
		t.Fatalf("the seeded read made no artifact:\n%s", out)
	}

	app := startDesktop(t, bin, dir, db, "FOYA_SMOKE_OPEN="+sessionID)
	ready := app.waitReady(t)
	want := fmt.Sprintf("foya: ui ready version=%s sessions=1 open=%s turns=1 cards=1 images=1", version, sessionID)
	if ready != want {
		t.Fatalf("ready line = %q; want %q (the read's card showing its image, read through the Artifact call)", ready, want)
	}
	shot := app.screenshot(t, "desktop-image.png")
	app.quit(t)
	t.Logf("screenshot: %s", shot)
}
