package tests

import (
	"context"
	"testing"

	"foya/backend/kernel"
)

// spec: W3 — each kind of notification (approval waiting, run ended, run
// failed) is a setting of its own, on unless set off; it is stored in its
// normal form, bad values are refused with what the key takes, and an
// unknown kind is invalid.
func TestNotificationSettingsAreStored(t *testing.T) {
	h := newHarness(t, nil)
	svc := panelService(h)
	ctx := context.Background()
	kinds := map[string]string{
		kernel.NotifyApproval:  "notify.approval",
		kernel.NotifyRunEnded:  "notify.runEnded",
		kernel.NotifyRunFailed: "notify.runFailed",
	}
	all, err := svc.Settings()
	if err != nil {
		t.Fatal(err)
	}
	for kind, key := range kinds {
		if on, err := h.k.Notifies(ctx, kind); err != nil || !on {
			t.Errorf("Notifies(%s) unset = %v, %v; want on", kind, on, err)
		}
		if all[key] != "true" {
			t.Errorf("Settings()[%s] = %q; want the default true", key, all[key])
		}
	}
	if err := svc.SetSetting("notify.runEnded", "FALSE"); err != nil {
		t.Fatal(err)
	}
	if err := svc.SetSetting("notify.approval", "off"); apiCode(err) != "invalid" {
		t.Errorf("SetSetting(notify.approval, off) = %v; want invalid", err)
	}
	if all, _ = svc.Settings(); all["notify.runEnded"] != "false" || all["notify.approval"] != "true" {
		t.Errorf("after turning run ended off, settings %q and %q; want false and true", all["notify.runEnded"], all["notify.approval"])
	}
	// Stored: a kernel opened again on the same database reads it.
	h.k.Close()
	h.open(nil)
	for kind, want := range map[string]bool{kernel.NotifyApproval: true, kernel.NotifyRunEnded: false, kernel.NotifyRunFailed: true} {
		if on, err := h.k.Notifies(ctx, kind); err != nil || on != want {
			t.Errorf("Notifies(%s) after reopening = %v, %v; want %v", kind, on, err, want)
		}
	}
	if _, err := h.k.Notifies(ctx, "birthday"); kernel.Code(err) != kernel.CodeInvalid {
		t.Errorf("Notifies(birthday) = %v; want invalid", err)
	}
}
