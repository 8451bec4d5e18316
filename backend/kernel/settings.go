package kernel

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"foya/backend/approval"
	"foya/backend/store"
	"foya/backend/tools/files"
)

// Setting keys users can set.
const (
	SettingDefaultMode  = settingDefaultMode
	SettingMaxWrite     = files.MaxWriteSetting
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
	all[SettingMaxWrite] = strconv.FormatInt(maxWrite(ctx, k.store), 10)
	return all, nil
}

// maxWrite is the setting files.maxWriteBytes, or files.DefaultMaxWrite.
func maxWrite(ctx context.Context, st *store.Store) int64 {
	v, ok, err := st.Setting(ctx, SettingMaxWrite)
	if err != nil || !ok {
		return files.DefaultMaxWrite
	}
	n, err := parseBytes(v)
	if err != nil {
		return files.DefaultMaxWrite
	}
	return n
}

// parseBytes reads a positive byte count: digits, optionally followed by
// KiB, MiB or GiB.
func parseBytes(v string) (int64, error) {
	s := strings.TrimSpace(v)
	unit := int64(1)
	for i, suffix := range []string{"KiB", "MiB", "GiB"} {
		if rest, ok := strings.CutSuffix(s, suffix); ok {
			s, unit = strings.TrimSpace(rest), 1<<(10*(i+1))
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/unit {
		return 0, fmt.Errorf("want a positive number of bytes, such as 67108864 or 64MiB, got %q", v)
	}
	return n * unit, nil
}

// SetSetting validates and stores one user setting: approval.default (a
// mode), files.maxWriteBytes (the most content one write takes, in bytes,
// or with KiB, MiB or GiB) or model.images.MODEL (true or false).
func (k *Kernel) SetSetting(ctx context.Context, key, value string) error {
	switch {
	case key == SettingDefaultMode:
		if _, err := approval.ParseMode(value); err != nil {
			return err
		}
		return k.SetDefaultMode(ctx, value)
	case key == SettingMaxWrite:
		n, err := parseBytes(value)
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		return k.store.SetSetting(ctx, key, strconv.FormatInt(n, 10))
	case strings.HasPrefix(key, settingImagesPrefix) && len(key) > len(settingImagesPrefix):
		on, err := strconv.ParseBool(value)
		if err != nil {
			return fmt.Errorf("%s: want true or false, got %q", key, value)
		}
		return k.SetImageInput(ctx, strings.TrimPrefix(key, settingImagesPrefix), on)
	}
	return fmt.Errorf("unknown setting %q: known are %s, %s and %sMODEL", key, SettingDefaultMode, SettingMaxWrite, settingImagesPrefix)
}
