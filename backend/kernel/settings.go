package kernel

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"foya/backend/approval"
)

// Setting keys users can set.
const (
	SettingDefaultMode  = settingDefaultMode
	settingImagesPrefix = "model.images."
	// SettingSandboxReadable lists absolute paths, separated by the
	// system's path list separator (":" on Linux), that sandboxed commands
	// may read although the sandbox hides them by default: a credential
	// store such as ~/.aws, or Foya's data folder. Foya's database stays
	// hidden whatever it says.
	SettingSandboxReadable = "sandbox.readable"
)

// Settings returns the stored settings with the effective default mode.
func (k *Kernel) Settings(ctx context.Context) (map[string]string, error) {
	all, err := k.store.Settings(ctx)
	if err != nil {
		return nil, err
	}
	mode, err := k.DefaultMode(ctx)
	if err != nil {
		return nil, err
	}
	all[SettingDefaultMode] = string(mode)
	return all, nil
}

// SetSetting validates and stores one user setting: approval.default (a
// mode) or model.images.MODEL (true or false).
func (k *Kernel) SetSetting(ctx context.Context, key, value string) error {
	switch {
	case key == SettingDefaultMode:
		if _, err := approval.ParseMode(value); err != nil {
			return err
		}
		return k.SetDefaultMode(ctx, value)
	case key == SettingSandboxReadable:
		if _, err := parseReadable(value); err != nil {
			return err
		}
		return k.store.SetSetting(ctx, key, value)
	case strings.HasPrefix(key, settingImagesPrefix) && len(key) > len(settingImagesPrefix):
		on, err := strconv.ParseBool(value)
		if err != nil {
			return fmt.Errorf("%s: want true or false, got %q", key, value)
		}
		return k.SetImageInput(ctx, strings.TrimPrefix(key, settingImagesPrefix), on)
	}
	return fmt.Errorf("unknown setting %q: known are %s, %s and %sMODEL", key, SettingDefaultMode, SettingSandboxReadable, settingImagesPrefix)
}

// SandboxReadable returns the paths of the sandbox.readable setting.
func (k *Kernel) SandboxReadable(ctx context.Context) ([]string, error) {
	v, _, err := k.store.Setting(ctx, SettingSandboxReadable)
	if err != nil {
		return nil, fmt.Errorf("setting %s: %w", SettingSandboxReadable, err)
	}
	return parseReadable(v)
}

func parseReadable(v string) ([]string, error) {
	var paths []string
	for _, p := range filepath.SplitList(v) {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		if !filepath.IsAbs(p) {
			return nil, fmt.Errorf("%s: %q is not an absolute path; give absolute paths separated by %q",
				SettingSandboxReadable, p, string(filepath.ListSeparator))
		}
		paths = append(paths, filepath.Clean(p))
	}
	return paths, nil
}
