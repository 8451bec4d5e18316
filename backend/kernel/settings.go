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
	for key := range all {
		if strings.HasPrefix(key, settingRulesPrefix) {
			delete(all, key) // approvals of rules files: see ProjectRules
		}
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
	case strings.HasPrefix(key, settingImagesPrefix) && len(key) > len(settingImagesPrefix):
		on, err := strconv.ParseBool(value)
		if err != nil {
			return fmt.Errorf("%s: want true or false, got %q", key, value)
		}
		return k.SetImageInput(ctx, strings.TrimPrefix(key, settingImagesPrefix), on)
	}
	return fmt.Errorf("unknown setting %q: known are %s and %sMODEL", key, SettingDefaultMode, settingImagesPrefix)
}
