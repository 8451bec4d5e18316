package kernel

import (
	"testing"

	"foya/backend/tools/files"
)

// TestSettingKeysAgree keeps the literal setting keys (which the generated
// TypeScript holds) the same as the names the other code uses.
func TestSettingKeysAgree(t *testing.T) {
	if SettingDefaultMode != settingDefaultMode {
		t.Errorf("SettingDefaultMode = %q, the default mode is kept under %q", SettingDefaultMode, settingDefaultMode)
	}
	if SettingMaxWrite != files.MaxWriteSetting {
		t.Errorf("SettingMaxWrite = %q, the file tools read %q", SettingMaxWrite, files.MaxWriteSetting)
	}
	if SettingSandboxReadable != files.ReadableSetting {
		t.Errorf("SettingSandboxReadable = %q, the file tools' refusals name %q", SettingSandboxReadable, files.ReadableSetting)
	}
}
