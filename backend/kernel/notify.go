package kernel

import (
	"context"
	"fmt"
	"strconv"

	"foya/backend/settings"
)

// Kinds of notification a front end shows while its window is not in
// front; each can be turned off by its setting (settings.NotifyApproval,
// NotifyRunEnded, NotifyRunFailed).
const (
	NotifyApproval  = "approval"
	NotifyRunEnded  = "run_ended"
	NotifyRunFailed = "run_failed"
)

var notifySettings = map[string]string{
	NotifyApproval:  settings.NotifyApproval,
	NotifyRunEnded:  settings.NotifyRunEnded,
	NotifyRunFailed: settings.NotifyRunFailed,
}

// Notifies reports whether notifications of kind are on: its setting, else
// on. An unknown kind is an error of kind ErrInvalid.
func (k *Kernel) Notifies(ctx context.Context, kind string) (bool, error) {
	key, ok := notifySettings[kind]
	if !ok {
		return false, kindf(ErrInvalid, "notification kind %q: give %s, %s or %s", kind, NotifyApproval, NotifyRunEnded, NotifyRunFailed)
	}
	v, set, err := k.store.Setting(ctx, key)
	if err != nil || !set {
		return true, err
	}
	on, err := strconv.ParseBool(v)
	if err != nil {
		return true, fmt.Errorf("setting %s: want true or false, got %q", key, v)
	}
	return on, nil
}
