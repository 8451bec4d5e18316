package kernel

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"foya/backend/approval"
)

// Setting keys users can set.
const (
	SettingDefaultMode  = settingDefaultMode
	settingImagesPrefix = "model.images."
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
// mode), model.images.MODEL (true or false), shell.env.allow or
// shell.env.deny (variable names or globs, separated by commas or spaces).
func (k *Kernel) SetSetting(ctx context.Context, key, value string) error {
	switch {
	case key == SettingEnvAllow || key == SettingEnvDeny:
		return k.setEnvPolicy(ctx, key, value)
	case key == SettingDefaultMode:
		if _, err := approval.ParseMode(value); err != nil {
			return err
		}
		return k.SetDefaultMode(ctx, value)
	case strings.HasPrefix(key, settingImagesPrefix) && len(key) > len(settingImagesPrefix):
		on, err := strconv.ParseBool(value)
		if err != nil {
			return fmt.Errorf("%s: want true or false, got %q", key, value)
		}
		return k.SetImageInput(ctx, strings.TrimPrefix(key, settingImagesPrefix), on)
	}
	return fmt.Errorf("unknown setting %q: known are %s, %sMODEL, %s and %s", key, SettingDefaultMode, settingImagesPrefix,
		SettingEnvAllow, SettingEnvDeny)
}
