package kernel

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"foya/backend/approval"
	"foya/backend/engine"
	"foya/backend/provider"
	"foya/backend/store"
	"foya/backend/tools/files"
)

// Setting keys users can set.
const (
	// Literals, not the other packages' names, so that the TypeScript
	// generated from this file holds them (TestSettingKeysAgree keeps them
	// the same).
	SettingDefaultMode = "approval.default"
	SettingMaxSteps    = "run.max_steps"
	SettingMaxWrite    = "files.maxWriteBytes"
	// SettingImagesPrefix, followed by a model's name, says whether the
	// model takes image input ("true" or "false").
	SettingImagesPrefix = "model.images."
	// SettingSandboxReadable lists absolute paths, separated by the
	// system's path list separator (":" on Linux), that sandboxed commands
	// may read although the sandbox hides them by default: a credential
	// store such as ~/.aws, or Foya's data folder. Foya's database stays
	// hidden whatever it says.
	SettingSandboxReadable = "sandbox.readable"
	// SettingIdleTimeout is how long a model may send nothing before its
	// stream is stopped (a Go duration such as 30s or 5m).
	SettingIdleTimeout = "provider.idleTimeout"
	// SettingWorkspaceMaxFile is the largest file whose content the
	// workspace index keeps, so that a shell command's change to it can be
	// reverted (issue 15); larger files are recorded, not restorable.
	SettingWorkspaceMaxFile = "workspace.maxFileBytes"
	// SettingWorkspaceMaxTotal bounds the contents one session's workspace
	// index keeps, before compression.
	SettingWorkspaceMaxTotal = "workspace.maxTotalBytes"
	// SettingWorkspaceMaxKept bounds the disk (compressed) of the contents
	// the workspace indexes keep, all sessions together, with the earlier
	// contents not pruned yet; twice workspace.maxTotalBytes unless set.
	// Past it a content is not kept, and a later change of it is not
	// restorable (issue 21 item 10).
	SettingWorkspaceMaxKept = "workspace.maxKeptBytes"
)

// Settings returns the stored settings with the effective default mode and
// step limit.
func (k *Kernel) Settings(ctx context.Context) (map[string]string, error) {
	all, err := k.store.Settings(ctx)
	if err != nil {
		return nil, err
	}
	for key := range all {
		if key == SettingProviders {
			delete(all, key) // profiles: see Providers
		}
	}
	mode, err := k.DefaultMode(ctx)
	if err != nil {
		return nil, err
	}
	all[SettingDefaultMode] = string(mode)
	steps, err := k.MaxSteps(ctx)
	if err != nil {
		return nil, err
	}
	all[SettingMaxSteps] = strconv.Itoa(steps)
	all[SettingMaxWrite] = strconv.FormatInt(maxWrite(ctx, k.store), 10)
	lim := workspaceLimits(ctx, k.store)
	all[SettingWorkspaceMaxFile] = strconv.FormatInt(lim.MaxFile, 10)
	all[SettingWorkspaceMaxTotal] = strconv.FormatInt(lim.MaxTotal, 10)
	all[SettingWorkspaceMaxKept] = strconv.FormatInt(lim.KeptBound(), 10)
	idle, err := k.IdleTimeout(ctx)
	if err != nil {
		return nil, err
	}
	all[SettingIdleTimeout] = idle.String()
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
// mode), run.max_steps (a whole number from 1 to engine.MaxStepsLimit),
// files.maxWriteBytes (the most content one write takes, in bytes, or with
// KiB, MiB or GiB), sandbox.readable (absolute paths), provider.idleTimeout
// (a positive duration), shell.env.allow or shell.env.deny (variable names
// or globs, separated by commas or spaces) or model.images.MODEL (true or
// false).
func (k *Kernel) SetSetting(ctx context.Context, key, value string) error {
	switch {
	case key == SettingEnvAllow || key == SettingEnvDeny:
		return k.setEnvPolicy(ctx, key, value)
	case key == SettingMCPDeferShare:
		return k.setDeferShare(ctx, value)
	case key == SettingDefaultProvider:
		return k.SetDefaultProvider(ctx, value)
	case key == SettingDefaultMode:
		if _, err := approval.ParseMode(value); err != nil {
			return withKind(err, ErrInvalid)
		}
		return k.SetDefaultMode(ctx, value)
	case key == SettingMaxSteps:
		n, err := ParseMaxSteps(value)
		if err != nil {
			return kindf(ErrInvalid, "%s: %w", key, err)
		}
		return k.store.SetSetting(ctx, SettingMaxSteps, strconv.Itoa(n))
	case key == SettingSandboxReadable:
		if _, err := parseReadable(value); err != nil {
			return withKind(err, ErrInvalid)
		}
		return k.store.SetSetting(ctx, key, value)
	case key == SettingMaxWrite || key == SettingWorkspaceMaxFile || key == SettingWorkspaceMaxTotal || key == SettingWorkspaceMaxKept:
		n, err := parseBytes(value)
		if err != nil {
			return kindf(ErrInvalid, "%s: %w", key, err)
		}
		return k.store.SetSetting(ctx, key, strconv.FormatInt(n, 10))
	case key == SettingDiscoverPorts:
		ports, err := parsePorts(value)
		if err != nil {
			return withKind(err, ErrInvalid)
		}
		return k.store.SetSetting(ctx, key, joinPorts(ports))
	case key == SettingIdleTimeout:
		d, err := parseIdleTimeout(value)
		if err != nil {
			return kindf(ErrInvalid, "%s: %w", key, err)
		}
		return k.store.SetSetting(ctx, key, d.String())
	case strings.HasPrefix(key, SettingImagesPrefix) && len(key) > len(SettingImagesPrefix):
		on, err := strconv.ParseBool(value)
		if err != nil {
			return kindf(ErrInvalid, "%s: want true or false, got %q", key, value)
		}
		return k.SetImageInput(ctx, strings.TrimPrefix(key, SettingImagesPrefix), on)
	}
	return kindf(ErrInvalid, "unknown setting %q: known are %s and %sMODEL", key, strings.Join(settingKeys, ", "), SettingImagesPrefix)
}

// settingKeys are the plain keys SetSetting takes, for its error message.
var settingKeys = []string{SettingDefaultMode, SettingDefaultProvider, SettingMaxSteps, SettingMaxWrite, SettingSandboxReadable, SettingIdleTimeout, SettingEnvAllow, SettingEnvDeny, SettingDiscoverPorts, SettingMCPDeferShare, SettingWorkspaceMaxFile, SettingWorkspaceMaxTotal, SettingWorkspaceMaxKept}

// ParseMaxSteps reads a step limit: a whole number from 1 to
// engine.MaxStepsLimit, in decimal digits.
func ParseMaxSteps(value string) (int, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
	switch {
	case errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(strings.TrimSpace(value), "-"):
		return 0, fmt.Errorf("%s is too large: at most %d model steps per turn", value, engine.MaxStepsLimit)
	case errors.Is(err, strconv.ErrRange):
		return 0, fmt.Errorf("%s: a turn needs at least 1 model step; give 1 to %d", value, engine.MaxStepsLimit)
	case err != nil:
		return 0, fmt.Errorf("want a whole number of model steps (1 to %d), got %q", engine.MaxStepsLimit, value)
	case n < 1:
		return 0, fmt.Errorf("%d: a turn needs at least 1 model step; give 1 to %d", n, engine.MaxStepsLimit)
	case n > engine.MaxStepsLimit:
		return 0, fmt.Errorf("%d is too large: at most %d model steps per turn", n, engine.MaxStepsLimit)
	}
	return int(n), nil
}

// MaxSteps returns the step limit of a turn that does not give its own:
// the run.max_steps setting, else engine.DefaultMaxSteps.
func (k *Kernel) MaxSteps(ctx context.Context) (int, error) {
	v, ok, err := k.store.Setting(ctx, SettingMaxSteps)
	if err != nil || !ok {
		return engine.DefaultMaxSteps, err
	}
	n, err := ParseMaxSteps(v)
	if err != nil {
		return engine.DefaultMaxSteps, fmt.Errorf("setting %s: %w; set it again with foya settings set %s N", SettingMaxSteps, err, SettingMaxSteps)
	}
	return n, nil
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
