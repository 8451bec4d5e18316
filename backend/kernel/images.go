package kernel

import (
	"bytes"
	"context"
	"fmt"
	"image"
	_ "image/gif" // decoders of the image types a message may carry
	"image/jpeg"
	"image/png"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/image/draw"
	_ "golang.org/x/image/webp"

	"foya/backend/engine"
	"foya/backend/event"
	"foya/backend/llm"
)

// Images the user pastes or drops into the composer. AddImage checks and
// stores one as soon as it is given (so a message's images are in the
// store before the message is sent, and its bytes cross the bridge once);
// Run attaches the stored images to the user message by ID.

// AddImage checks data, an image the user attached, and stores it as an
// artifact of the session with a small copy for the transcript. It refuses
// (ErrInvalid, in words naming the file) an empty file, one over
// MaxImageBytes, one whose content is not a PNG, JPEG, GIF or WebP image
// whatever its name says, and one too large to decode. The client's checks
// are a courtesy: these are the ones that hold.
func (k *Kernel) AddImage(ctx context.Context, sessionID, name string, data []byte) (PastedImage, error) {
	name = imageName(name)
	if _, err := k.store.Session(ctx, sessionID); err != nil {
		return PastedImage{}, err
	}
	if err := checkImageSize(name, int64(len(data))); err != nil {
		return PastedImage{}, err
	}
	mime := http.DetectContentType(data)
	if !slices.Contains(ImageTypes, mime) {
		return PastedImage{}, kindf(ErrInvalid, "%s is not an image Foya can send (its content is %s): attach a PNG, JPEG, GIF or WebP image", name, contentKind(mime))
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return PastedImage{}, kindf(ErrInvalid, "%s cannot be read as a %s image (%v): save it again, or attach another", name, mime, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width*cfg.Height > engine.MaxImagePixels {
		return PastedImage{}, kindf(ErrInvalid, "%s is %d×%d pixels, more than the %d megapixels Foya takes: attach a smaller image",
			name, cfg.Width, cfg.Height, engine.MaxImagePixels/1_000_000)
	}
	thumb, thumbMIME, err := thumbnail(data, mime)
	if err != nil {
		return PastedImage{}, kindf(ErrInvalid, "%s cannot be read as a %s image (%v): save it again, or attach another", name, mime, err)
	}
	p := PastedImage{ID: engine.NewID("art"), ThumbID: engine.NewID("art"), Name: name, MIME: mime,
		Size: int64(len(data)), Width: cfg.Width, Height: cfg.Height}
	tb := thumbBounds(cfg.Width, cfg.Height)
	err = k.eng.RecordCommit(ctx, sessionID, llm.Commit{Artifacts: []llm.Artifact{
		{ID: p.ID, SessionID: sessionID, MIME: mime, Width: cfg.Width, Height: cfg.Height, Data: data},
		{ID: p.ThumbID, SessionID: sessionID, MIME: thumbMIME, Width: tb.Dx(), Height: tb.Dy(), Data: thumb},
	}})
	if err != nil {
		return PastedImage{}, fmt.Errorf("store image %s: %w", name, err)
	}
	return p, nil
}

// checkImageSize refuses an empty image and one over MaxImageBytes, naming
// the file, its size and the limit.
func checkImageSize(name string, n int64) error {
	if n == 0 {
		return kindf(ErrInvalid, "%s is empty: attach an image", name)
	}
	if n > MaxImageBytes {
		size := fmt.Sprintf("%.1f MB", float64(n)/1e6)
		if n < MaxImageBytes+50_000 {
			// Just over: rounded to MB it would read as within the limit.
			size = fmt.Sprintf("%d bytes", n)
		}
		return kindf(ErrInvalid, "%s is %s; images are limited to %s: attach a smaller one (a JPEG or a cropped screenshot)", name, size, megabytes(MaxImageBytes))
	}
	return nil
}

// megabytes words a byte count in decimal MB: "52.3 MB", "50 MB".
func megabytes(n int64) string {
	s := fmt.Sprintf("%.1f", float64(n)/1e6)
	return strings.TrimSuffix(s, ".0") + " MB"
}

// contentKind words a sniffed MIME type for a person.
func contentKind(mime string) string {
	base, _, _ := strings.Cut(mime, ";")
	switch {
	case strings.HasPrefix(base, "text/"):
		return "text"
	case base == "application/octet-stream":
		return "not a known kind of file"
	}
	return base
}

// imageName is the base of the file's name the user gave, bounded, or a
// name for a clipboard image that has none.
func imageName(name string) string {
	name = strings.TrimSpace(filepath.Base(strings.ReplaceAll(name, "\\", "/")))
	if name == "" || name == "." || name == "/" {
		return "pasted image"
	}
	if len(name) > 120 {
		cut := 120
		for cut > 0 && !utf8.RuneStart(name[cut]) {
			cut--
		}
		name = name[:cut] + "…"
	}
	return name
}

// thumbBounds is the size of an image's transcript copy: at most ThumbSide
// on its longer side, never larger than the image.
func thumbBounds(w, h int) image.Rectangle {
	if max(w, h) > ThumbSide {
		if w >= h {
			w, h = ThumbSide, max(1, h*ThumbSide/w)
		} else {
			w, h = max(1, w*ThumbSide/h), ThumbSide
		}
	}
	return image.Rect(0, 0, w, h)
}

// thumbnail is the transcript's copy of an image: scaled to thumbBounds,
// as JPEG for a JPEG, else PNG (a GIF's first frame).
func thumbnail(data []byte, mime string) ([]byte, string, error) {
	src, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, "", err
	}
	dst := image.NewRGBA(thumbBounds(src.Bounds().Dx(), src.Bounds().Dy()))
	draw.CatmullRom.Scale(dst, dst.Bounds(), src, src.Bounds(), draw.Over, nil)
	var buf bytes.Buffer
	if mime == "image/jpeg" {
		err = jpeg.Encode(&buf, dst, &jpeg.Options{Quality: 85})
		return buf.Bytes(), mime, err
	}
	err = png.Encode(&buf, dst)
	return buf.Bytes(), "image/png", err
}

// pastedImages checks the images a message names (RunOptions.Images): at
// most MaxImagesPerMessage, each an image artifact of the session (the
// client's word for it is not taken), and returns them as run.start names
// them, with the type, size and dimensions the store holds.
func (k *Kernel) pastedImages(ctx context.Context, sessionID string, list []PastedImage) ([]event.ImageRef, error) {
	if len(list) > MaxImagesPerMessage {
		return nil, kindf(ErrInvalid, "the message has %d images; a message may carry at most %d: send the rest in another message", len(list), MaxImagesPerMessage)
	}
	var out []event.ImageRef
	for _, p := range list {
		name := imageName(p.Name)
		a, err := k.store.Artifact(ctx, sessionID, p.ID)
		if err != nil {
			if IsNotFound(err) {
				return nil, kindf(ErrInvalid, "image %s is not stored in this session: attach it again", name)
			}
			return nil, err
		}
		if !slices.Contains(ImageTypes, a.MIME) {
			return nil, kindf(ErrInvalid, "%s (%s) is not an image Foya can send: attach a PNG, JPEG, GIF or WebP image", name, a.MIME)
		}
		if err := checkImageSize(name, a.Size); err != nil {
			return nil, err
		}
		if t, err := k.store.Artifact(ctx, sessionID, p.ThumbID); err != nil || !strings.HasPrefix(t.MIME, "image/") {
			return nil, kindf(ErrInvalid, "the small copy of %s is not stored in this session: attach the image again", name)
		}
		out = append(out, event.ImageRef{ArtifactID: a.ID, ThumbID: p.ThumbID, Name: name, MIME: a.MIME, Size: a.Size, Width: a.Width, Height: a.Height})
	}
	return out, nil
}
