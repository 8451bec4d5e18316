package api

import (
	"encoding/base64"
	"fmt"

	"foya/backend/kernel"
)

// The conversation's images. foya serve also serves an
// artifact's raw bytes at /api/sessions/{id}/artifacts/{artifactId}; the
// desktop window has no such route, so it reads them through this call.

// MaxArtifactBytes is the largest artifact Artifact hands out: its bytes
// travel base64 in one JSON reply, so a bigger one is refused rather than
// copied whole through the window's bridge.
const MaxArtifactBytes = 20 << 20

// ArtifactData is an artifact with its bytes. A front end shows it inline
// only when MIME is an image type, and then only through an <img> element
// (a blob: or data: URL), never as markup: an SVG must not run script.
type ArtifactData struct {
	ID   string `json:"id"`
	MIME string `json:"mime"`
	// Size is the number of bytes (before base64).
	Size   int64 `json:"size"`
	Width  int   `json:"width,omitempty"`
	Height int   `json:"height,omitempty"`
	// Data is the bytes, base64 (standard alphabet, padded).
	Data string `json:"data"`
}

// Artifact returns an artifact of a session (an image a tool made) with its
// MIME type, size and bytes. An artifact of another session is not found;
// one larger than MaxArtifactBytes is refused with code invalid.
func (s *Service) Artifact(sessionID, artifactID string) (ArtifactData, error) {
	return call(s, func(k *kernel.Kernel) (ArtifactData, error) {
		if err := need("sessionID", sessionID); err != nil {
			return ArtifactData{}, err
		}
		if err := need("artifactID", artifactID); err != nil {
			return ArtifactData{}, err
		}
		a, err := k.Artifact(s.ctx, sessionID, artifactID)
		if err != nil {
			return ArtifactData{}, err
		}
		if len(a.Data) > MaxArtifactBytes {
			return ArtifactData{}, invalid("artifact %s is %s, more than the %s the window reads at once: open this session in the browser (foya serve) to see it",
				a.ID, mib(int64(len(a.Data))), mib(MaxArtifactBytes))
		}
		return ArtifactData{ID: a.ID, MIME: a.MIME, Size: int64(len(a.Data)), Width: a.Width, Height: a.Height,
			Data: base64.StdEncoding.EncodeToString(a.Data)}, nil
	})
}

// mib words a byte count in MiB with one decimal.
func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
