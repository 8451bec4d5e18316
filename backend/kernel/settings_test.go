package kernel

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"

	"foya/backend/profiles"
	"foya/backend/settings"
	"foya/backend/tools/files"
)

// TestSettingKeysAgree keeps the keys other code reads under its own names
// the same as those of settings.Table, which SetSetting takes.
func TestSettingKeysAgree(t *testing.T) {
	for _, c := range []struct{ name, got, want string }{
		{"settingDefaultMode", settingDefaultMode, settings.DefaultMode},
		{"files.MaxWriteSetting", files.MaxWriteSetting, settings.MaxWrite},
		{"files.ReadableSetting", files.ReadableSetting, settings.SandboxReadable},
		{"SettingEnvAllow", SettingEnvAllow, settings.EnvAllow},
		{"SettingEnvDeny", SettingEnvDeny, settings.EnvDeny},
		{"profiles.SettingDiscoverPorts", profiles.SettingDiscoverPorts, settings.DiscoverPorts},
		{"SettingMCPDeferShare", SettingMCPDeferShare, settings.MCPDeferShare},
		{"profiles.SettingDefaultProvider", profiles.SettingDefaultProvider, settings.DefaultProvider},
	} {
		if c.got != c.want {
			t.Errorf("%s = %q; settings.Table declares %q", c.name, c.got, c.want)
		}
	}
}

// TestSettingDefaultsAreInForce: on a database where nothing is set, every
// setting the table gives a default has that default in force, as Settings
// reports it and as the code that reads it uses it.
func TestSettingDefaultsAreInForce(t *testing.T) {
	ctx := context.Background()
	k, err := Open(ctx, Options{DBPath: filepath.Join(t.TempDir(), "foya.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	all, err := k.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range settings.Table {
		if s.Family == "" && all[s.Key] != s.Default {
			t.Errorf("Settings()[%s] = %q; settings.Table says the default is %q", s.Key, all[s.Key], s.Default)
		}
	}
	if got := profiles.JoinPorts(profiles.DefaultDiscoverPorts); got != all[settings.DiscoverPorts] {
		t.Errorf("DefaultDiscoverPorts = %s; the table says %s", got, all[settings.DiscoverPorts])
	}
	if got := strconv.FormatFloat(k.deferShare(ctx), 'f', -1, 64); got != all[settings.MCPDeferShare] {
		t.Errorf("the MCP defer share in force is %s; the table says %s", got, all[settings.MCPDeferShare])
	}
	for key := range all {
		if _, ok := settings.Lookup(key); !ok {
			t.Errorf("Settings() reports %s, which settings.Table does not declare", key)
		}
	}
}
