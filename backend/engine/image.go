package engine

import (
	"bytes"
	"fmt"
	"image"
	_ "image/gif" // decoders for images tools return
	"image/jpeg"
	"image/png"

	"golang.org/x/image/draw"
	_ "golang.org/x/image/webp"
)

// Image limits: a tool's image larger than MaxImagePixels is refused (it
// would take hundreds of megabytes to decode); one whose longer side exceeds
// MaxImageSide is scaled down before it is sent to a model, which would
// scale or reject it anyway.
const (
	MaxImagePixels = 40_000_000
	MaxImageSide   = 2048
)

// checkImage reads an image's header: its size, or an error worded for the
// model when the bytes are not an image we can read or the image is too big.
func checkImage(data []byte) (w, h int, err error) {
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return 0, 0, fmt.Errorf("the image cannot be decoded (%v); it was not kept", err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width*cfg.Height > MaxImagePixels {
		return 0, 0, fmt.Errorf("the %s image is %d×%d (%.1f megapixels), more than the %d megapixels Foya accepts; it was not kept: make a smaller one",
			format, cfg.Width, cfg.Height, float64(cfg.Width)*float64(cfg.Height)/1e6, MaxImagePixels/1_000_000)
	}
	return cfg.Width, cfg.Height, nil
}

// fitImage returns data unchanged when its longer side is within
// MaxImageSide, else the image scaled down to fit, as PNG (or JPEG for JPEG
// input). Anything it cannot decode is returned unchanged: checkImage
// already refused what is broken.
func fitImage(data []byte) []byte {
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil || max(cfg.Width, cfg.Height) <= MaxImageSide {
		return data
	}
	src, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return data
	}
	w, h := cfg.Width, cfg.Height
	if w >= h {
		w, h = MaxImageSide, max(1, h*MaxImageSide/w)
	} else {
		w, h = max(1, w*MaxImageSide/h), MaxImageSide
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.CatmullRom.Scale(dst, dst.Bounds(), src, src.Bounds(), draw.Over, nil)
	var buf bytes.Buffer
	if format == "jpeg" {
		err = jpeg.Encode(&buf, dst, &jpeg.Options{Quality: 90})
	} else {
		err = png.Encode(&buf, dst)
	}
	if err != nil {
		return data
	}
	return buf.Bytes()
}
