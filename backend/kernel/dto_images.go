package kernel

// Images the user pastes or drops into the composer, in a dto*.go file of
// their own: tygo.yaml generates the front end's types from the dto*.go
// files alone.

// MaxImageBytes is the largest image the user may attach to a message:
// 50 MB (decimal megabytes, as file managers show sizes).
const MaxImageBytes = 50_000_000

// MaxImagesPerMessage is the most images one message may carry.
const MaxImagesPerMessage = 10

// ImageTypes are the MIME types of images a message may carry, as their
// content says (sniffed), whatever the file's name.
var ImageTypes = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}

// ThumbSide is the longer side, in pixels, of the small copy of an image
// the transcript shows.
const ThumbSide = 320

// PastedImage is an image the user attached, stored as an artifact of the
// session by AddImage before the message is sent: the message names it by
// ID (RunOptions.Images), so its bytes cross the bridge once.
type PastedImage struct {
	// ID is the artifact holding the image's bytes as given.
	ID string `json:"id"`
	// ThumbID is the artifact holding a copy at most ThumbSide pixels on
	// its longer side, for the transcript.
	ThumbID string `json:"thumbId"`
	// Name is the file's name (or "pasted image.png" for a clipboard image).
	Name   string `json:"name"`
	MIME   string `json:"mime"`
	Size   int64  `json:"size"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
}
