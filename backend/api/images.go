package api

import (
	"encoding/base64"
	"strings"

	"foya/backend/kernel"
)

// Images the user pastes or drops into the composer: each is stored as
// soon as it is given (AddImage), and the message names the stored ones
// (RunWithImages).

// AddImage stores an image the user attached to the message being written:
// data is its bytes, base64 (standard alphabet). It is checked in the
// kernel whatever the window checked: at most kernel.MaxImageBytes, a PNG,
// JPEG, GIF or WebP image by its content; otherwise code invalid, in words
// naming the file and the limit or what it is.
func (s *Service) AddImage(sessionID, name, data string) (kernel.PastedImage, error) {
	return call(s, func(k *kernel.Kernel) (kernel.PastedImage, error) {
		if err := need("sessionId", sessionID); err != nil {
			return kernel.PastedImage{}, err
		}
		b, err := base64.StdEncoding.DecodeString(data)
		if err != nil {
			return kernel.PastedImage{}, invalid("the image's bytes are not base64: %v", err)
		}
		return k.AddImage(s.ctx, sessionID, name, b)
	})
}

// RunWithImages is RunWithMentions with images stored by AddImage (at most
// kernel.MaxImagesPerMessage) going with the message. A model that takes no
// images is not sent them: it gets a note for each, and the transcript
// still shows them.
func (s *Service) RunWithImages(sessionID, message string, resources []kernel.ResourceRef, files []string, images []kernel.PastedImage) (string, error) {
	if err := need("sessionId", sessionID); err != nil {
		return "", err
	}
	if strings.TrimSpace(message) == "" {
		return "", invalid("the message is empty: type what the agent should do with the images")
	}
	return s.start(func(k *kernel.Kernel, started func(string)) error {
		_, err := k.Run(s.ctx, kernel.RunOptions{SessionID: sessionID, Prompt: message, Resources: resources, Files: files, Images: images, Started: started})
		return err
	})
}
