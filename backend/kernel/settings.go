package kernel

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"foya/backend/engine"
	"foya/backend/provider"
	"foya/backend/settings"
	"foya/backend/store"
	"foya/backend/tools/files"
)

// Setting keys, declared with their parsers, defaults and docs in
// backend/settings; these names stay for the kernel's callers.
const (
	SettingDefaultMode       = settings.DefaultMode
	SettingMaxSteps          = settings.MaxSteps
	SettingRepeatLimit       = settings.RepeatLimit
	SettingMaxWrite          = settings.MaxWrite
	SettingImagesPrefix      = settings.ImagesPrefix
	SettingSandboxReadable   = settings.SandboxReadable
	SettingIdleTimeout       = settings.IdleTimeout
	SettingWorkspaceMaxFile  = settings.WorkspaceMaxFile
	SettingWorkspaceMaxTotal = settings.WorkspaceMaxTotal
	SettingWorkspaceMaxKept  = settings.WorkspaceMaxKept
)

// Settings returns the settings of settings.Table that are set, and every
// one with a default at the value in force. Other rows of the settings
// table (approvals of project rules and MCP servers, provider profiles)
// are not settings a person sets, and are left out.
func (k *Kernel) Settings(ctx context.Context) (map[string]string, error) {
	all, err := k.store.Settings(ctx)
	if err != nil {
		return nil, err
	}
	for key := range all {
		if _, ok := settings.Lookup(key); !ok {
			delete(all, key)
		}
	}
	for _, s := range settings.Table {
		if _, ok := all[s.Key]; !ok && s.Family == "" && s.Default != "" {
			all[s.Key] = s.Default
		}
	}
	mode, err := k.DefaultMode(ctx)
	if err != nil {
		return nil, err
	}
	all[SettingDefaultMode] = mode
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
	n, err := settings.ParseBytes(v)
	if err != nil {
		return files.DefaultMaxWrite
	}
	return n
}

// IdleTimeout returns how long a model may send nothing before its stream
// is stopped: the provider.idleTimeout setting, else
// provider.DefaultIdleTimeout. Front ends pass it to the provider.
func (k *Kernel) IdleTimeout(ctx context.Context) (time.Duration, error) {
	v, ok, err := k.store.Setting(ctx, SettingIdleTimeout)
	if err != nil || !ok {
		return provider.DefaultIdleTimeout, err
	}
	d, err := settings.ParseDuration(v)
	if err != nil {
		return provider.DefaultIdleTimeout, fmt.Errorf("setting %s: %w", SettingIdleTimeout, err)
	}
	return d, nil
}

// SetSetting validates and stores one setting of settings.Table; an
// unknown key or a value its kind does not take is an ErrInvalid error
// naming the key and what it takes, and stores nothing.
func (k *Kernel) SetSetting(ctx context.Context, key, value string) error {
	s, v, err := settings.Parse(key, value)
	if err != nil {
		return withKind(err, ErrInvalid)
	}
	switch s.Key {
	case settings.DefaultProvider:
		return k.profiles.SetDefault(ctx, v) // the profile must exist
	case settings.ImagesPrefix:
		return k.profiles.SetImageInput(ctx, strings.TrimPrefix(key, s.Key), v == "true")
	}
	return k.store.SetSetting(ctx, key, v)
}

// MaxSteps returns the step limit of a turn that does not give its own:
// the run.max_steps setting, else engine.DefaultMaxSteps.
func (k *Kernel) MaxSteps(ctx context.Context) (int, error) {
	v, ok, err := k.store.Setting(ctx, SettingMaxSteps)
	if err != nil || !ok {
		return engine.DefaultMaxSteps, err
	}
	n, err := settings.ParseMaxSteps(v)
	if err != nil {
		return engine.DefaultMaxSteps, fmt.Errorf("setting %s: %w; set it again with foya settings set %s N", SettingMaxSteps, err, SettingMaxSteps)
	}
	return n, nil
}

// RepeatLimit returns how many times the same failing call may come
// before a run stops: the run.repeatLimit setting, else
// engine.DefaultRepeatLimit.
func (k *Kernel) RepeatLimit(ctx context.Context) (int, error) {
	v, ok, err := k.store.Setting(ctx, SettingRepeatLimit)
	if err != nil || !ok {
		return engine.DefaultRepeatLimit, err
	}
	n, err := settings.ParseRepeatLimit(v)
	if err != nil {
		return engine.DefaultRepeatLimit, fmt.Errorf("setting %s: %w; set it again with foya settings set %s N", SettingRepeatLimit, err, SettingRepeatLimit)
	}
	return n, nil
}

// SandboxReadable returns the paths of the sandbox.readable setting.
func (k *Kernel) SandboxReadable(ctx context.Context) ([]string, error) {
	v, _, err := k.store.Setting(ctx, SettingSandboxReadable)
	if err != nil {
		return nil, fmt.Errorf("setting %s: %w", SettingSandboxReadable, err)
	}
	paths, err := settings.ParsePaths(v)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", SettingSandboxReadable, err)
	}
	return paths, nil
}
