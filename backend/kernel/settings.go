package kernel

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"foya/backend/approval"
	"foya/backend/provider"
)

// Setting keys users can set.
const (
	SettingDefaultMode  = settingDefaultMode
	settingImagesPrefix = "model.images."
	// SettingIdleTimeout is how long a model may send nothing before its
	// stream is stopped (a Go duration such as 30s or 5m).
	SettingIdleTimeout = "provider.idleTimeout"
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
	idle, err := k.IdleTimeout(ctx)
	if err != nil {
		return nil, err
	}
	all[SettingIdleTimeout] = idle.String()
	return all, nil
}

// IdleTimeout returns how long a model may send nothing before its stream
// is stopped: the provider.idleTimeout setting, else
// provider.DefaultIdleTimeout. Front ends pass it to the provider.
func (k *Kernel) IdleTimeout(ctx context.Context) (time.Duration, error) {
	v, ok, err := k.store.Setting(ctx, SettingIdleTimeout)
	if err != nil || !ok {
		return provider.DefaultIdleTimeout, err
	}
	d, err := parseIdleTimeout(v)
	if err != nil {
		return provider.DefaultIdleTimeout, fmt.Errorf("setting %s: %w", SettingIdleTimeout, err)
	}
	return d, nil
}

func parseIdleTimeout(v string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(v))
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("want a positive duration such as 30s or 5m, got %q", v)
	}
	return d, nil
}

// SetSetting validates and stores one user setting: approval.default (a
// mode), model.images.MODEL (true or false) or provider.idleTimeout (a
// positive duration).
func (k *Kernel) SetSetting(ctx context.Context, key, value string) error {
	switch {
	case key == SettingDefaultMode:
		if _, err := approval.ParseMode(value); err != nil {
			return err
		}
		return k.SetDefaultMode(ctx, value)
	case key == SettingIdleTimeout:
		d, err := parseIdleTimeout(value)
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		return k.store.SetSetting(ctx, key, d.String())
	case strings.HasPrefix(key, settingImagesPrefix) && len(key) > len(settingImagesPrefix):
		on, err := strconv.ParseBool(value)
		if err != nil {
			return fmt.Errorf("%s: want true or false, got %q", key, value)
		}
		return k.SetImageInput(ctx, strings.TrimPrefix(key, settingImagesPrefix), on)
	}
	return fmt.Errorf("unknown setting %q: known are %s, %s and %sMODEL", key, SettingDefaultMode, SettingIdleTimeout, settingImagesPrefix)
}
