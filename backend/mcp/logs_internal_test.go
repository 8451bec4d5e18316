package mcp

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestLogEntryOfBadInput: notifications/message as a broken server may
// send it (no level, a level that is not a word, no data, data that is a
// number, invalid UTF-8, a huge logger name) is kept as well as it reads,
// bounded, never dropped nor a panic.
// spec: M1
func TestLogEntryOfBadInput(t *testing.T) {
	now := time.Now()
	for _, tc := range []struct {
		params string
		level  string
		data   string
	}{
		{`{}`, "info", ""},
		{`{"level": 3, "data": 42}`, "info", "42"},
		{`{"level": "", "data": null}`, "info", ""},
		{`{"level": "verbose", "data": "\u00ff"}`, "verbose", "\u00ff"},
		{`{"level": "error", "data": [1, {"a": true}]}`, "error", `[1,{"a":true}]`},
	} {
		var p mcp.NotificationParams
		if err := json.Unmarshal([]byte(tc.params), &p); err != nil {
			t.Fatal(err)
		}
		e := logEntryOf(mcp.JSONRPCNotification{Notification: mcp.Notification{Method: "notifications/message", Params: p}}, now)
		if e.Level != tc.level || e.Data != tc.data || !e.Time.Equal(now) {
			t.Errorf("%s: %+v; want level %q data %q", tc.params, e, tc.level, tc.data)
		}
	}
	huge := mcp.NotificationParams{AdditionalFields: map[string]any{
		"level": strings.Repeat("l", 1000), "logger": strings.Repeat("g", 10_000), "data": "bad \xff utf8 " + strings.Repeat("d", 1<<20)}}
	e := logEntryOf(mcp.JSONRPCNotification{Notification: mcp.Notification{Params: huge}}, now)
	if len(e.Level) > 40 || len(e.Logger) > 300 || len(e.Data) > logDataBytes+4 || !strings.HasPrefix(e.Data, "bad \uFFFD utf8") {
		t.Errorf("huge: level %d, logger %d, data %d bytes (%q…)", len(e.Level), len(e.Logger), len(e.Data), e.Data[:12])
	}
	var b logBook
	for i := range 1000 {
		b.add("k", LogEntry{Data: strings.Repeat("x", i%10)})
	}
	if n := len(b.get("k")); n != logKeep {
		t.Errorf("kept %d; want %d", n, logKeep)
	}
	if len(b.get("other")) != 0 {
		t.Error("another server's log is not empty")
	}
}
