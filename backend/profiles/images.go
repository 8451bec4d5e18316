package profiles

import (
	"context"
	"strconv"
	"strings"

	"foya/backend/fault"
)

// imageModels are name fragments of model families known to take image
// input; everything else is assumed text-only until the user says otherwise
// in the settings (a wrong "yes" makes servers reject the request; a wrong
// "no" only leaves images out with a note).
var imageModels = []string{
	"gpt-4o", "gpt-4.1", "gpt-4-turbo", "gpt-5", "o3", "o4", "chatgpt-4o",
	"claude", "gemini", "gemma-3", "gemma3", "pixtral", "mistral-small-3", "mistral-medium",
	"vision", "-vl", "_vl", "vl-", "llava", "bakllava", "moondream", "minicpm-v", "qwen2.5vl", "qwen3-vl", "internvl", "grok-2-vision", "grok-4", "llama-4", "llama4",
}

// DefaultImageInput guesses from a model's name whether it takes images.
func DefaultImageInput(model string) bool {
	m := strings.ToLower(model)
	for _, f := range imageModels {
		if strings.Contains(m, f) {
			return true
		}
	}
	return false
}

// SettingImagesPrefix, followed by a model's name, says whether the model
// takes image input ("true" or "false").
const SettingImagesPrefix = "model.images."

func imageSetting(model string) string { return SettingImagesPrefix + model }

// ImageInput says whether a model takes image input: the user's setting for
// it, else DefaultImageInput.
func (s *Service) ImageInput(ctx context.Context, model string) (bool, error) {
	v, ok, err := s.settings.Setting(ctx, imageSetting(model))
	if err != nil || !ok {
		return DefaultImageInput(model), err
	}
	on, err := strconv.ParseBool(v)
	if err != nil {
		return DefaultImageInput(model), nil
	}
	return on, nil
}

// SetImageInput records whether a model takes image input.
func (s *Service) SetImageInput(ctx context.Context, model string, on bool) error {
	if strings.TrimSpace(model) == "" {
		return fault.Errorf(fault.ErrInvalid, "image input: give the model's name")
	}
	return s.settings.SetSetting(ctx, imageSetting(model), strconv.FormatBool(on))
}
